// The console in a real browser (tests/support/console_browser.js):
// Debian's chromium, headless, loads every page of a console whose
// database a real fleet worked on. The screenshot of the overview is left
// in the build tree: <build>/console-overview.png.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "tests/support/console_fixture.h"

namespace awc::testing {
namespace {

TEST(ConsoleBrowserTest, EveryPageInChromium) {
  std::string script =
      std::string(AWC_SOURCE_DIR) + "/tests/support/console_browser.js";
  std::string modules =
      std::string(AWC_SOURCE_DIR) + "/build-deps/node_modules";
  ASSERT_TRUE(std::filesystem::exists(modules + "/puppeteer-core"))
      << "puppeteer-core is not installed in " << modules << ": run make deps";
  ASSERT_TRUE(std::filesystem::exists("/usr/bin/chromium"))
      << "chromium is not installed: run make deps";

  TestDatabase db;
  db.Migrate();
  DaemonProcess fleet(FleetOptions(db, 2));
  FleetRun run = RunFleet(db, fleet, 5);
  // A paused kind, marked in the queue and listed with its reason.
  CommandResult paused = RunAwcctl(
      {"-d", db.url(), "kinds", "pause", "test_fail", "--reason", "poison"},
      {});
  ASSERT_EQ(paused.code, 0) << paused.err;
  ConsoleProcess console(db);
  ASSERT_TRUE(console.WaitListening()) << console.process().Stderr();

  std::string shot = std::string(AWC_BUILD_DIR) + "/console-overview.png";
  std::filesystem::remove(shot);
  std::string ids = "{\"sleeping\": " + std::to_string(run.sleeping) +
                    ", \"failed\": " + std::to_string(run.failed) +
                    ", \"hostile\": " + std::to_string(run.hostile) +
                    ", \"snapshot\": " + std::to_string(run.snapshot) + "}";
  TempDir home;  // chromium's profile and caches
  CommandResult r = RunProcess(
      "/usr/bin/node",
      {script, "http://127.0.0.1:" + std::to_string(console.port()), ids, shot},
      {{"AWC_NODE_MODULES", modules}, {"HOME", home.path()}});
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("every page as expected"), std::string::npos) << r.out;

  std::ifstream png(shot, std::ios::binary);
  char magic[8] = {};
  png.read(magic, sizeof magic);
  EXPECT_EQ(std::string(magic, 8), "\x89PNG\r\n\x1a\n") << shot;
  EXPECT_GT(std::filesystem::file_size(shot), 10000u);
}

}  // namespace
}  // namespace awc::testing
