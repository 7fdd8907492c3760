#include "obs/log_testing.h"

#include <gtest/gtest.h>

#include "obs/log.h"

namespace awc::obs {
namespace {

// What the log writes while a CapturedLog lives comes back parsed, once,
// in order.
TEST(CapturedLogTest, EventsAreTheLinesWrittenSinceTheLastCall) {
  CapturedLog log;
  ASSERT_TRUE(log.ok());
  Warn("t1", "first").Int("n", 1).Emit();
  Info("t2", "second").Str("who", "x").Emit();
  std::vector<JsonPtr> events = log.Events();
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(CapturedLog::Str(events[0].get(), "msg"), "first");
  EXPECT_EQ(CapturedLog::Str(events[0].get(), "level"), "warn");
  EXPECT_EQ(CapturedLog::Str(events[1].get(), "who"), "x");
  EXPECT_EQ(CapturedLog::Str(events[1].get(), "absent"), "");
  EXPECT_TRUE(log.Events().empty());  // each line once
}

}  // namespace
}  // namespace awc::obs
