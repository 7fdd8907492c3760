// Concurrency limits on real daemons (docs/queue.md, "Concurrency
// limits"): two fleets on one database, each with its own AWC_WORKER_ID
// and more workers than the limits allow, drain a backlog of one kind
// without ever running more of it than its host and fleet limits say, and
// run other kinds meanwhile.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <string>

#include "tests/support/harness.h"

namespace awc::testing {
namespace {

TEST(DaemonLimitsTest, TwoFleetsKeepTheHostAndFleetLimitsUnderLoad) {
  TestDatabase db;
  db.Migrate();
  CommandResult set =
      RunAwcctl({"-d", db.url(), "kinds", "limit", "test_sleep", "--host",
                 "2", "--fleet", "3", "--force"},
                {});
  ASSERT_EQ(set.code, 0) << set.err;
  EXPECT_EQ(set.out, "kind test_sleep limits: 2 per host, 3 in the fleet\n");
  for (int i = 0; i < 24; ++i) db.Enqueue("test_sleep", R"({"ms": 150})");
  DaemonProcess host_a(FleetOptions(db, 3, {{"AWC_WORKER_ID", "host-a"}}));
  DaemonProcess host_b(FleetOptions(db, 3, {{"AWC_WORKER_ID", "host-b"}}));
  // Other work is not held back by the limited kind's backlog.
  int64_t other = db.Enqueue("test_complete", "{}");

  int64_t most = 0, most_a = 0, most_b = 0;
  auto running = [&](const std::string& host) {
    return db.Int(
        "SELECT count(*) FROM awc.jobs WHERE kind = 'test_sleep' AND "
        "state = 'RUNNING' AND ($1 = '' OR locked_by = $1)",
        {host});
  };
  bool drained = WaitUntil(
      [&] {
        most = std::max(most, running(""));
        most_a = std::max(most_a, running("host-a"));
        most_b = std::max(most_b, running("host-b"));
        return db.Int("SELECT count(*) FROM awc.jobs WHERE kind = "
                      "'test_sleep' AND state <> 'COMPLETED'") == 0;
      },
      60);
  ASSERT_TRUE(drained) << host_a.Stderr() << host_b.Stderr();
  EXPECT_EQ(db.JobState(other), "COMPLETED");
  EXPECT_LE(most_a, 2);
  EXPECT_LE(most_b, 2);
  EXPECT_LE(most, 3);
  // The limits bound: the fleet ran as many as they allow at some point.
  EXPECT_EQ(most, 3);
  // Both hosts took part.
  EXPECT_GT(db.Int("SELECT count(DISTINCT locked_by) FROM awc.jobs WHERE "
                   "kind = 'test_sleep'"),
            1);
}

}  // namespace
}  // namespace awc::testing
