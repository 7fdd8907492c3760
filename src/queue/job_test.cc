#include "queue/job.h"

#include <gtest/gtest.h>

#include <cctype>
#include <set>
#include <string>

namespace awc::queue {
namespace {

// The tables spell the SQL literals of migrations/ (awc.jobs.state and
// awc.jobs.dead_reason), each once.
TEST(JobTest, JobStatesRoundTripThroughTheirTable) {
  EXPECT_STREQ(JobStateName(JobState::kPending), "PENDING");
  EXPECT_STREQ(JobStateName(JobState::kCancelled), "CANCELLED");
  std::set<std::string> names;
  for (const JobStateRow& row : kJobStates) {
    EXPECT_TRUE(names.insert(row.name).second) << row.name;
    EXPECT_STREQ(JobStateName(row.value), row.name);
    EXPECT_EQ(ParseJobState(row.name), row.value);
    EXPECT_NE(row.value, JobState::kOther);
  }
  EXPECT_EQ(names.size(), 5u);
  EXPECT_EQ(ParseJobState("pending"), JobState::kOther);
  EXPECT_EQ(ParseJobState(""), JobState::kOther);
  EXPECT_STREQ(JobStateName(JobState::kOther), "OTHER");
}

TEST(JobTest, OutcomeLabels) {
  EXPECT_STREQ(OutcomeLabel(JobState::kCompleted), "completed");
  EXPECT_STREQ(OutcomeLabel(JobState::kFailed), "failed");
  EXPECT_STREQ(OutcomeLabel(JobState::kCancelled), "cancelled");
  EXPECT_STREQ(OutcomeLabel(JobState::kPending), "retried");
  EXPECT_STREQ(OutcomeLabel(JobState::kRunning), "other");
  EXPECT_STREQ(OutcomeLabel(JobState::kOther), "other");
}

TEST(JobTest, DeadReasonsRoundTripThroughTheirTable) {
  EXPECT_STREQ(DeadReasonName(DeadReason::kSubjectMissing), "subject_missing");
  std::set<std::string> names;
  for (const DeadReasonRow& row : kDeadReasons) {
    EXPECT_TRUE(names.insert(row.name).second) << row.name;
    EXPECT_STREQ(DeadReasonName(row.value), row.name);
    EXPECT_EQ(ParseDeadReason(row.name), row.value);
    EXPECT_NE(row.value, DeadReason::kNone);
  }
  EXPECT_EQ(names.size(), 6u);
  EXPECT_STREQ(DeadReasonName(DeadReason::kNone), "");
  EXPECT_EQ(ParseDeadReason(""), DeadReason::kNone);
  EXPECT_EQ(ParseDeadReason("Unknown_Kind"), DeadReason::kNone);
}

TEST(JobTest, QueueStatesAreTheSampledJobStates) {
  EXPECT_STREQ(QueueStateName(QueueState::kRunning), "running");
  EXPECT_EQ(MetricLabels(QueueState::kFailed)[0], "failed");
  for (const QueueStateRow& row : kQueueStates) {
    EXPECT_STREQ(QueueStateName(row.value), row.name);
    std::string lower = JobStateName(row.state);
    for (char& c : lower) c = static_cast<char>(std::tolower(c));
    EXPECT_EQ(lower, row.name);
  }
}

}  // namespace
}  // namespace awc::queue
