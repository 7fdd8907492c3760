#include "worker/job_event.h"

#include <gtest/gtest.h>
#include <jansson.h>

namespace awc::worker {
namespace {

struct Row {
  queue::JobState state;
  const char* level;
  const char* msg;
  const char* outcome;
};

// Each state a job can be left in -> level, message and outcome label.
// A deferral is a value: info, and an outcome label of its own.
TEST(JobEventTest, ADeferredJobIsInfoWithItsOwnOutcome) {
  obs::SetLogWorker("w-1");
  std::string text =
      MakeJobEvent(82, "gc_sweep", queue::JobState::kPending, 0, true)
          .Format(0);
  EXPECT_EQ(text,
            "{\"ts\":\"1970-01-01T00:00:00.000Z\",\"level\":\"info\","
            "\"id\":\"job_82\",\"msg\":\"job deferred\",\"worker\":\"w-1\","
            "\"kind\":\"gc_sweep\",\"outcome\":\"deferred\","
            "\"state\":\"PENDING\",\"attempts\":0}");
  EXPECT_STREQ(JobOutcome(queue::JobState::kPending, true), "deferred");
  EXPECT_STREQ(JobOutcome(queue::JobState::kPending, false), "retried");
}

TEST(JobEventTest, LevelAndMessageFollowTheOutcome) {
  const Row rows[] = {
      {queue::JobState::kCompleted, "info", "job completed", "completed"},
      {queue::JobState::kPending, "warn", "job retried after transient failure",
       "retried"},
      {queue::JobState::kFailed, "error", "job dead-lettered", "failed"},
      {queue::JobState::kCancelled, "error", "job cancelled", "cancelled"},
      {queue::JobState::kRunning, "warn", "job left in an unexpected state",
       "other"},
      {queue::JobState::kOther, "warn", "job left in an unexpected state",
       "other"},
  };
  obs::SetLogWorker("w-1");
  for (const Row& row : rows) {
    std::string text =
        MakeJobEvent(81, "snapshot_validate", row.state, 3).Format(0);
    std::string want = std::string("{\"ts\":\"1970-01-01T00:00:00.000Z\",") +
                       "\"level\":\"" + row.level + "\",\"id\":\"job_81\"," +
                       "\"msg\":\"" + row.msg + "\",\"worker\":\"w-1\"," +
                       "\"kind\":\"snapshot_validate\",\"outcome\":\"" +
                       row.outcome + "\",\"state\":\"" +
                       queue::JobStateName(row.state) + "\",\"attempts\":3}";
    EXPECT_EQ(text, want);
  }
}

TEST(JobEventTest, KindIsEscapedNotTrusted) {
  std::string text =
      MakeJobEvent(1, "bad\"kind\n", queue::JobState::kFailed, 1).Format(0);
  json_error_t err;
  json_t* j = json_loads(text.c_str(), 0, &err);
  ASSERT_NE(j, nullptr) << text;
  EXPECT_STREQ(json_string_value(json_object_get(j, "kind")), "bad\"kind\n");
  json_decref(j);
}

}  // namespace
}  // namespace awc::worker
