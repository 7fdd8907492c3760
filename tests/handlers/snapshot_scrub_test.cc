// snapshot_scrub against a real database and the in-process stores: a
// clean scrub, decay degrading and pinning, what is skipped, the read
// budget.
#include <gtest/gtest.h>

#include <chrono>

#include "tests/handlers/snapshot_handler_fixture.h"

namespace awc::testing {
namespace {

TEST_F(HandlerTest, CleanScrubKeepsReadyAndAudits) {
  std::string root = cas_.Tree(30, "clean");
  int64_t id = cas_.Snapshot(root);
  ASSERT_EQ(ResultField(Validate(id), "verdict"), "ready");
  queue::Outcome o = Scrub(id);
  ASSERT_EQ(o.kind, queue::Outcome::Kind::kComplete) << o.error;
  EXPECT_EQ(ResultField(o, "verdict"), "clean");
  EXPECT_EQ(SnapState(id), "READY");
  EXPECT_EQ(db_.Scalar("SELECT scrubbed_at IS NOT NULL FROM awc.snapshots "
                       "WHERE id = $1",
                       {std::to_string(id)}),
            "t");
  EXPECT_EQ(db_.Scalar("SELECT data->>'verdict' || '/' || (data->>'objects') "
                       "FROM awc.audit_events WHERE event = 'snapshot.scrub' "
                       "AND subject = $1",
                       {"snapshot/" + std::to_string(id)}),
            "clean/" + ResultField(o, "objects"));
  EXPECT_EQ(db_.Int("SELECT count(*) FROM awc.gc_pins"), 0);
}

TEST_F(HandlerTest, ScrubSkipsWhatIsNotReady) {
  std::string root = cas_.Manifest({cas_.E("f", cas_.Blob("x"))});
  for (const char* state : {"VALIDATING", "FAILED", "DEGRADED", "RELEASED"}) {
    int64_t id = cas_.Snapshot(root, state);
    queue::Outcome o = Scrub(id);
    EXPECT_EQ(ResultField(o, "verdict"), "skipped");
    EXPECT_EQ(SnapState(id), state);
  }
  EXPECT_EQ(db_.Int("SELECT count(*) FROM awc.audit_events"), 0);
}

TEST_F(HandlerTest, ScrubOfReadyWithoutClosureRowsWalksFromTheRoot) {
  std::string a = cas_.Blob("aaaa");
  std::string root = cas_.Manifest({cas_.E("a", a)});
  int64_t id = cas_.Snapshot(root, "READY");
  cas_.PutRaw(a, "aaab");
  queue::Outcome o = Scrub(id);
  EXPECT_EQ(ResultField(o, "verdict"), "degraded");
  EXPECT_EQ(SnapState(id), "DEGRADED");
}

TEST_F(HandlerTest, DecayedSnapshotDegradesAndPinsItsClosure) {
  std::string a = cas_.Blob("aaaa"), b = cas_.Blob("bbbb"),
              c = cas_.Blob("cccc");
  std::string root =
      cas_.Manifest({cas_.E("a", a), cas_.E("b", b), cas_.E("c", c)});
  int64_t id = cas_.Snapshot(root);
  ASSERT_EQ(ResultField(Validate(id), "verdict"), "ready");
  cas_.PutRaw(a, "aaaX");  // bit rot
  auto key = store::MakeKey("t1", c);
  ASSERT_TRUE(store_->DeleteMany({*key}).ok());  // lost
  queue::Outcome o = Scrub(id);
  ASSERT_EQ(o.kind, queue::Outcome::Kind::kComplete) << o.error;
  EXPECT_EQ(ResultField(o, "verdict"), "degraded");
  EXPECT_EQ(ResultField(o, "bad"), "2");
  EXPECT_EQ(SnapState(id), "DEGRADED");
  EXPECT_EQ(Failure(id, "code"), "decayed");
  EXPECT_EQ(
      db_.Scalar("SELECT string_agg(d, ',' ORDER BY d) FROM "
                 "jsonb_array_elements_text((SELECT failure->'bad_digests' "
                 "FROM awc.snapshots WHERE id = $1)) d",
                 {std::to_string(id)}),
      std::min(a, c) + "," + std::max(a, c));
  EXPECT_EQ(db_.Int("SELECT count(*) FROM awc.gc_pins WHERE snapshot_id = $1 "
                    "AND reason = 'degraded'",
                    {std::to_string(id)}),
            4);
  EXPECT_EQ(db_.Scalar("SELECT data->>'verdict' || '/' || (data->>'bad') FROM "
                       "awc.audit_events WHERE event = 'snapshot.scrub'"),
            "degraded/2");
}

// The scrub reads no faster than the host's budget: every batch of reads
// waits for the ones before it at the budget's rate. Only a lower bound on
// the time is asserted (a busy machine makes it longer, never shorter).
TEST_F(HandlerTest, AScrubReadsAtTheHostsBudget) {
  std::vector<CasFixture::Entry> entries;
  for (int i = 0; i < 20; ++i) {
    std::string name = "f" + std::to_string(100 + i);
    entries.push_back(cas_.E(
        name, cas_.Blob(std::string(10000, 'a' + i % 26) + std::to_string(i))));
  }
  int64_t id = cas_.Snapshot(cas_.Manifest(entries));
  ASSERT_EQ(ResultField(Validate(id), "verdict"), "ready");
  ctx_->mutable_options().read_budget.bytes_per_sec = 100'000;
  auto start = std::chrono::steady_clock::now();
  queue::Outcome o = Scrub(id);
  double secs =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  ASSERT_EQ(ResultField(o, "verdict"), "clean") << o.error;
  int64_t bytes = std::stoll(ResultField(o, "bytes"));
  ASSERT_GT(bytes, 200'000);
  // One batch of 16 reads goes at once; the rest wait for it: at 100 kB/s,
  // the first batch's ~160 kB hold the second back about 1.6 s.
  EXPECT_GE(secs, 1.5) << bytes << " bytes in " << secs << " s";
  EXPECT_GT(ctx_->checkpoints(), 1);  // the lease renewed while it waited
  // An objects-per-second budget holds it back the same way.
  ctx_->mutable_options().read_budget = {.bytes_per_sec = 0,
                                         .objects_per_sec = 20};
  start = std::chrono::steady_clock::now();
  ASSERT_EQ(ResultField(Scrub(id), "verdict"), "clean");
  secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
             .count();
  EXPECT_GE(secs, 16 / 20.0 - 0.05);
}

}  // namespace
}  // namespace awc::testing
