// Secret scrubbing for everything awc-worker prints.
//
// Secrets (the database password, the S3 secret key) are registered once,
// when the configuration is loaded; every path that writes text meant for a
// human or a machine outside the process (stderr events, startup errors, -t
// output, HTTP bodies) passes it through Scrub(). The registry is per process
// and inherited across fork().
//
// Redacting the database URL itself (RedactConnInfo) is separate: a URL is
// shown with its password replaced, so an operator can still see the target.
#ifndef AWC_COMMON_REDACT_H_
#define AWC_COMMON_REDACT_H_

#include <string>
#include <string_view>

namespace awc {

inline constexpr std::string_view kRedacted = "********";

// Registers `secret` so that Scrub() replaces it. Empty and very short
// strings (fewer than 4 bytes) are ignored: replacing them would mangle
// ordinary text without protecting anything worth the name.
void RegisterSecret(std::string_view secret);

// Forgets every registered secret (tests).
void ClearSecrets();

// Returns `text` with every registered secret replaced by kRedacted.
std::string Scrub(std::string_view text);

// Returns a libpq connection string (URL or key=value form) with its password
// and sslpassword replaced by kRedacted, wherever libpq would read them from
// (URL user info, query parameters, key=value pairs). Input that libpq cannot
// parse is returned as "(unparseable connection string)", because it may
// hold a password in a form we cannot see.
std::string RedactConnInfo(std::string_view conninfo);

// Returns the password of a libpq connection string, or "" if it has none.
std::string ConnInfoPassword(std::string_view conninfo);

}  // namespace awc

#endif  // AWC_COMMON_REDACT_H_
