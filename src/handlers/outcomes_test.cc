#include "handlers/outcomes.h"

#include <gtest/gtest.h>

#include <string>

#include "common/json.h"

namespace awc::handlers {
namespace {

using queue::Outcome;

std::string Field(const std::string& json, const char* key) {
  Result<JsonPtr> doc = ParseJson(json);
  EXPECT_TRUE(doc.ok()) << json;
  if (!doc.ok()) return "<unparsed>";
  const json_t* v = json_object_get(doc->get(), key);
  return json_is_string(v) ? json_string_value(v) : "<missing>";
}

TEST(OutcomesTest, RetryOnKeepsTheErrorsMessage) {
  Outcome o = RetryOn(Status::Transient("store timeout"));
  EXPECT_EQ(o.kind, Outcome::Kind::kRetry);
  EXPECT_EQ(o.error, "store timeout");
  EXPECT_EQ(o.reason, queue::DeadReason::kNone);
  EXPECT_EQ(o.delay_secs, 0);
}

TEST(OutcomesTest, RetryOnAnyErrorIsARetry) {
  // Whatever stopped the handler, the retry path (bounded by max_attempts)
  // decides; a handler that means to dead-letter returns Fail itself.
  for (const Status& s :
       {Status::NotFound("gone"), Status::Corruption("bad"),
        Status::FailedPrecondition("lease lost"), Status::Internal("bug")}) {
    Outcome o = RetryOn(s);
    EXPECT_EQ(o.kind, Outcome::Kind::kRetry) << s.ToString();
    EXPECT_EQ(o.error, s.message());
  }
}

TEST(OutcomesTest, SkippedCompletesWithTheState) {
  Outcome o = Skipped("RELEASED");
  EXPECT_EQ(o.kind, Outcome::Kind::kComplete);
  EXPECT_EQ(o.error, "");
  EXPECT_EQ(Field(o.result, "verdict"), "skipped");
  EXPECT_EQ(Field(o.result, "state"), "RELEASED");
}

TEST(OutcomesTest, SkippedResultIsJsonWhateverTheState) {
  Outcome o = Skipped("changed \"during\" scrub\n");
  EXPECT_EQ(Field(o.result, "state"), "changed \"during\" scrub\n");
}

}  // namespace
}  // namespace awc::handlers
