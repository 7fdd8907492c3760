// Percent-encoding (RFC 3986) of arbitrary bytes, for URLs the project
// builds: query names and values, path segments, S3 object keys (SigV4's
// URI encoding), connection URLs shown to operators.
//
// Contract: every byte but the unreserved A-Z a-z 0-9 - . _ ~ (and '/'
// when `keep_slash`) becomes %XX with uppercase hex. Never fails.
#ifndef AWC_COMMON_PERCENT_ENCODE_H_
#define AWC_COMMON_PERCENT_ENCODE_H_

#include <string>
#include <string_view>

namespace awc {

std::string PercentEncode(std::string_view text, bool keep_slash = false);

}  // namespace awc

#endif  // AWC_COMMON_PERCENT_ENCODE_H_
