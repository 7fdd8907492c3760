// The query part of a request target (`/jobs?state=FAILED&kind=x`), as
// browsers write it for links and GET forms; common/percent_encode.h builds
// such targets.
//
// Contract: ParseQueryString never fails. It splits on '&', takes the text
// before the first '=' of each piece as the name (a piece without '=' has
// an empty value), turns '+' into a space and decodes %XX; a '%' not
// followed by two hex digits stays as it is. Empty pieces are skipped. The
// pairs keep their order; a name may repeat. Values are bytes: callers that
// render them check or escape them.
#ifndef AWC_HTTP_QUERY_STRING_H_
#define AWC_HTTP_QUERY_STRING_H_

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace awc::http {

using QueryArgs = std::vector<std::pair<std::string, std::string>>;

// The arguments of `query` (the text after '?', without it).
QueryArgs ParseQueryString(std::string_view query);

// `target`'s query: what follows its first '?', or "" when it has none.
std::string_view QueryOf(std::string_view target);

// Decodes %XX and '+' (a space) as ParseQueryString does.
std::string PercentDecode(std::string_view text);

// Decodes the %XX of a request's path ('+' stays itself), every byte kept:
// a %00 is a NUL in the result, not its end.
std::string DecodePath(std::string_view path);

}  // namespace awc::http

#endif  // AWC_HTTP_QUERY_STRING_H_
