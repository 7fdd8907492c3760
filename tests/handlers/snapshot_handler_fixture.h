// The fixture of the tests of snapshot_validate and snapshot_scrub against a
// real database and the in-process stores.
#ifndef AWC_TESTS_HANDLERS_SNAPSHOT_HANDLER_FIXTURE_H_
#define AWC_TESTS_HANDLERS_SNAPSHOT_HANDLER_FIXTURE_H_

#include <gtest/gtest.h>

#include "handlers/snapshot_scrub.h"
#include "handlers/snapshot_validate.h"
#include "store/memory_store.h"
#include "tests/support/cas_fixture.h"
#include "tests/support/counting_store.h"

namespace awc::testing {

using handlers::SnapshotPayload;

class HandlerTest : public ::testing::Test {
 protected:
  HandlerTest()
      : store_(store::NewMemoryStore()),
        counting_(*store_),
        cas_(db_, counting_, "t1") {
    db_.Migrate();
    ctx_ = std::make_unique<TestContext>(db_, counting_);
  }

  std::string SnapState(int64_t id) {
    return db_.Scalar("SELECT state FROM awc.snapshots WHERE id = $1",
                      {std::to_string(id)});
  }
  std::string Failure(int64_t id, const char* key) {
    return db_.Scalar("SELECT failure->>'" + std::string(key) +
                          "' FROM awc.snapshots WHERE id = $1",
                      {std::to_string(id)});
  }
  queue::Outcome Validate(int64_t id) {
    return handlers::ValidateSnapshot(*ctx_, SnapshotPayload{id});
  }
  queue::Outcome Scrub(int64_t id, int64_t reverify_after_secs = 0) {
    return handlers::ScrubSnapshot(
        *ctx_, handlers::ScrubPayload{id, reverify_after_secs});
  }
  void ExpectFailedWith(int64_t id, const char* code,
                        const std::string& digest) {
    queue::Outcome o = Validate(id);
    EXPECT_EQ(o.kind, queue::Outcome::Kind::kComplete) << o.error;
    EXPECT_EQ(ResultField(o, "verdict"), "failed");
    EXPECT_EQ(ResultField(o, "code"), code);
    EXPECT_EQ(SnapState(id), "FAILED");
    EXPECT_EQ(Failure(id, "code"), code);
    EXPECT_EQ(Failure(id, "digest"), digest);
    EXPECT_EQ(db_.Int("SELECT count(*) FROM awc.snapshot_objects WHERE "
                      "snapshot_id = $1",
                      {std::to_string(id)}),
              0);
  }

  TestDatabase db_;
  std::unique_ptr<store::ObjectStore> store_;
  CountingStore counting_;
  CasFixture cas_;
  std::unique_ptr<TestContext> ctx_;
};

}  // namespace awc::testing

#endif  // AWC_TESTS_HANDLERS_SNAPSHOT_HANDLER_FIXTURE_H_
