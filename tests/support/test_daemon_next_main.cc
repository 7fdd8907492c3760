// awc-worker-testd-next: the test daemon as the next release would be, for
// the tests of rolling upgrades (tests/daemon/rolling_upgrade_test.cc): a
// version of its own, one migration more than this build knows, and one job
// kind more. The migration is compatible with this build, unless
// TESTD_NEXT_BREAKING=1. Test use only.
#include <cstdlib>
#include <cstring>
#include <string>

#include "common/build_version_testing.h"
#include "daemon/daemon.h"
#include "migrate/embedded_migrations_testing.h"
#include "tests/support/test_handlers.h"

int main(int argc, char** argv) {
  awc::SetBuildVersionForTest(AWC_VERSION "+next");
  const char* breaking = getenv("TESTD_NEXT_BREAKING");
  std::vector<awc::migrate::Migration>& migrations =
      awc::migrate::MutableEmbeddedMigrations();
  int version = migrations.back().version + 1;
  static const std::string name = std::to_string(version) + "_next_release";
  migrations.push_back(
      {version, name.c_str(),
       "CREATE TABLE awc.next_release (id integer PRIMARY KEY);\n",
       breaking != nullptr && strcmp(breaking, "1") == 0
           ? awc::migrate::Compatibility::kBreaking
           : awc::migrate::Compatibility::kOlderBuildsRun});
  return awc::daemon::DaemonMain(argc, argv,
                                 awc::testing::RegisterNextReleaseHandlers);
}
