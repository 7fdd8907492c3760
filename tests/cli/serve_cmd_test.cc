// Where awcctl serve listens: loopback unless told otherwise, with a
// warning when it is told; an address it cannot use is refused.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include "tests/support/console_fixture.h"

namespace awc::testing {
namespace {

TEST(ConsoleListenTest, ListensOnLoopbackUnlessToldAndWarnsThen) {
  TestDatabase db;
  db.Migrate();
  ConsoleProcess local(db);
  ASSERT_TRUE(local.WaitListening()) << local.process().Stderr();
  std::string url = "http://127.0.0.1:" + std::to_string(local.port()) + "/";
  EXPECT_NE(local.process().Stderr().find("awcctl: console on " + url),
            std::string::npos)
      << local.process().Stderr();
  EXPECT_EQ(local.process().Stderr().find("warning"), std::string::npos);
  local.process().Signal(SIGTERM);
  std::optional<int> status = local.process().WaitExit();
  ASSERT_TRUE(status.has_value());
  EXPECT_TRUE(WIFEXITED(*status) && WEXITSTATUS(*status) == 0) << *status;

  int port = FreePort();
  ConsoleProcess open(db, ":" + std::to_string(port));
  ASSERT_TRUE(WaitUntil([&] {
    return HttpGet(port, "/favicon.ico").first == 204;
  })) << open.process().Stderr();
  EXPECT_NE(open.process().Stderr().find(
                "awcctl: warning: listening on port " + std::to_string(port) +
                " of every interface, not a loopback address: the console has "
                "no authentication"),
            std::string::npos)
      << open.process().Stderr();
  // Not on loopback, any Host is answered.
  EXPECT_EQ(
      HttpExchange(port, "GET / HTTP/1.0\r\nHost: console.example\r\n\r\n")
          .status,
      200);

  CommandResult bad = RunAwcctl({"serve", "--listen", "localhost"},
                                {{"DATABASE_URL", db.url()}});
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find("awcctl: --listen: \"localhost\" is not host:port"),
            std::string::npos)
      << bad.err;
}

}  // namespace
}  // namespace awc::testing
