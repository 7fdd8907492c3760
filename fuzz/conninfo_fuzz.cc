// DATABASE_URL redaction: whatever libpq would read as the password is
// never shown by RedactConnInfo, and Scrub() removes a registered secret.
#include <string>

#include "common/redact.h"
#include "fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using awc::fuzz::Contains;
  using awc::fuzz::Require;
  std::string_view conninfo = awc::fuzz::AsText(data, size);
  std::string redacted = awc::RedactConnInfo(conninfo);
  std::string password = awc::ConnInfoPassword(conninfo);
  // A password that occurs once in the input (so nothing else can show the
  // same bytes) and is long enough to be told apart from other text.
  bool distinctive = password.size() >= 6 &&
                     password.find('*') == std::string::npos &&
                     conninfo.find(password) == conninfo.rfind(password);
  if (distinctive) {
    Require(!Contains(redacted, password), "RedactConnInfo hides the password");
    awc::ClearSecrets();
    awc::RegisterSecret(password);
    Require(!Contains(awc::Scrub(conninfo), password),
            "Scrub removes a registered secret");
    awc::ClearSecrets();
  }
  return 0;
}
