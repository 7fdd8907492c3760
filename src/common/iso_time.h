// UTC timestamps in the ISO 8601 form that PostgreSQL's to_char and S3's
// listings write.
#ifndef AWC_COMMON_ISO_TIME_H_
#define AWC_COMMON_ISO_TIME_H_

#include <optional>
#include <string_view>

namespace awc {

// "YYYY-MM-DDTHH:MM:SSZ", or with a fraction of a second before the "Z"
// ("…:SS.000Z", as S3 writes LastModified), as whole seconds since the
// epoch (the fraction dropped); nullopt for anything else.
std::optional<double> ParseIsoUtc(std::string_view iso);

}  // namespace awc

#endif  // AWC_COMMON_ISO_TIME_H_
