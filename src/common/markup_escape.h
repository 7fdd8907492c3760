// Escaping of text written into HTML or XML (the console's pages, the
// bodies of S3 requests).
//
// Contract: & < > " ' become &amp; &lt; &gt; &quot; &#39; (a character
// reference both languages read); every other byte is kept as is, so the
// caller decides what to do with invalid UTF-8 or control characters.
// Never fails.
#ifndef AWC_COMMON_MARKUP_ESCAPE_H_
#define AWC_COMMON_MARKUP_ESCAPE_H_

#include <string>
#include <string_view>

namespace awc {

std::string EscapeMarkup(std::string_view text);

}  // namespace awc

#endif  // AWC_COMMON_MARKUP_ESCAPE_H_
