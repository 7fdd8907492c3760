#include "handlers/registry.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

#include "handlers/payload.h"

namespace awc::handlers {
namespace {

using queue::Outcome;

// A JobContext with a job and settings only; handlers under test must not
// touch the database or the loop.
class FakeContext : public JobContext {
 public:
  FakeContext(std::string kind, std::string payload) {
    job_.id = 81;
    job_.kind = std::move(kind);
    job_.payload = std::move(payload);
    job_.attempts = 1;
    job_.max_attempts = 5;
  }

  const queue::Job& job() const override { return job_; }
  db::PgConn& db() override {
    ADD_FAILURE() << "handler used the database";
    std::abort();
  }
  const HandlerOptions& options() const override { return options_; }
  struct ev_loop* loop() override {
    return nullptr;
  }
  store::ObjectStore& store() override {
    ADD_FAILURE() << "handler used the object store";
    std::abort();
  }
  obs::Metrics& metrics() override {
    ADD_FAILURE() << "handler used the metrics";
    std::abort();
  }
  Status Checkpoint() override {
    ++checkpoints;
    return Status::OK();
  }

  int checkpoints = 0;

 private:
  queue::Job job_;
  HandlerOptions options_;
};

// Records what the handlers saw.
struct Calls {
  std::vector<int64_t> snapshot_ids;
  std::vector<std::string> tenants;
  const JobContext* last_ctx = nullptr;
};

class RegistryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    registry_.Add<SnapshotPayload>(
        "snapshot_validate", DecodeSnapshotPayload,
        [this](JobContext& ctx, const SnapshotPayload& p) {
          calls_.snapshot_ids.push_back(p.snapshot_id);
          calls_.last_ctx = &ctx;
          EXPECT_TRUE(ctx.Checkpoint().ok());
          return Outcome::Complete("{\"verdict\":\"ready\",\"id\":" +
                                   std::to_string(p.snapshot_id) + "}");
        });
    registry_.Add<TenantPayload>("gc_sweep", DecodeTenantPayload,
                                 [this](JobContext&, const TenantPayload& p) {
                                   calls_.tenants.push_back(p.tenant_id);
                                   if (p.tenant_id == "locked")
                                     return Outcome::Defer(30, "locked");
                                   if (p.tenant_id == "flaky")
                                     return Outcome::Retry("store timeout");
                                   return Outcome::Fail("tenant gone");
                                 });
  }

  Outcome Dispatch(const std::string& kind, const std::string& payload) {
    FakeContext ctx(kind, payload);
    return registry_.Dispatch(ctx);
  }

  Registry registry_;
  Calls calls_;
};

TEST_F(RegistryTest, KindsListsRegisteredKinds) {
  EXPECT_EQ(registry_.Kinds(),
            (std::vector<std::string>{"gc_sweep", "snapshot_validate"}));
  EXPECT_TRUE(registry_.Has("gc_sweep"));
  EXPECT_TRUE(registry_.Has("snapshot_validate"));
  EXPECT_FALSE(registry_.Has("snapshot_scrub"));
  EXPECT_FALSE(registry_.Has(""));
  EXPECT_TRUE(Registry().Kinds().empty());
}

TEST_F(RegistryTest, UnknownKindFails) {
  Outcome o = Dispatch("git_import", "{\"snapshot_id\": 1}");
  EXPECT_EQ(o.kind, Outcome::Kind::kFail);
  EXPECT_EQ(o.error, "unknown job kind");
  // Even with a payload that is not JSON: the kind is checked first.
  o = Dispatch("SNAPSHOT_VALIDATE", "not json");
  EXPECT_EQ(o.kind, Outcome::Kind::kFail);
  EXPECT_EQ(o.error, "unknown job kind");
  EXPECT_TRUE(calls_.snapshot_ids.empty());
}

// A kind this build lacks that another build's live workers handle (a
// later release's) is left to them: deferred, no attempt spent; one that no
// live worker handles is dead-lettered as ever; and a failure to ask is a
// retry, not a dead letter.
TEST_F(RegistryTest, AKindAnotherBuildHandlesIsLeftToIt) {
  std::vector<std::string> asked;
  Result<std::vector<std::string>> answer = std::vector<std::string>{"0.3.0"};
  registry_.SetOtherBuilds([&](JobContext&, const std::string& kind) {
    asked.push_back(kind);
    return answer;
  });
  Outcome o = Dispatch("git_import", "{}");
  EXPECT_EQ(o.kind, Outcome::Kind::kDefer);
  EXPECT_EQ(o.delay_secs, kLeftForOtherBuildSecs);
  EXPECT_NE(o.error.find("left for the live workers of build 0.3.0"),
            std::string::npos)
      << o.error;
  answer = std::vector<std::string>{};
  o = Dispatch("git_import", "{}");
  EXPECT_EQ(o.kind, Outcome::Kind::kFail);
  EXPECT_EQ(o.error, "unknown job kind");
  answer = Status::Transient("database connection lost");
  o = Dispatch("git_import", "{}");
  EXPECT_EQ(o.kind, Outcome::Kind::kRetry);
  EXPECT_EQ(asked, (std::vector<std::string>{"git_import", "git_import",
                                             "git_import"}));
  // A kind this build has is never asked about.
  Dispatch("snapshot_validate", "{\"snapshot_id\": 1}");
  EXPECT_EQ(asked.size(), 3u);
}

TEST_F(RegistryTest, MalformedJsonFails) {
  for (const char* bad : {"", "{", "{\"snapshot_id\": 1,}", "snapshot 1",
                          "{\"snapshot_id\": 1, \"snapshot_id\": 2}"}) {
    Outcome o = Dispatch("snapshot_validate", bad);
    EXPECT_EQ(o.kind, Outcome::Kind::kFail) << bad;
    EXPECT_EQ(o.error.rfind("malformed payload: ", 0), 0u) << o.error;
  }
  EXPECT_TRUE(calls_.snapshot_ids.empty());
}

TEST_F(RegistryTest, DecoderRejectionFails) {
  struct Case {
    const char* kind;
    const char* payload;
    const char* error;
  };
  const Case cases[] = {
      {"snapshot_validate", "{\"snapshot_id\": \"42\"}",
       "malformed payload: payload key \"snapshot_id\" is not an integer"},
      {"snapshot_validate", "{}",
       "malformed payload: payload lacks \"snapshot_id\""},
      {"snapshot_validate", "[42]",
       "malformed payload: payload is not a JSON object"},
      {"snapshot_validate", "{\"snapshot_id\": 0}",
       "malformed payload: payload key \"snapshot_id\" must be >= 1"},
      {"gc_sweep", "{\"tenant_id\": \"../etc\"}",
       "malformed payload: payload key \"tenant_id\" is not a tenant id "
       "(^[a-z0-9][a-z0-9_-]{0,62}$)"},
  };
  for (const Case& c : cases) {
    Outcome o = Dispatch(c.kind, c.payload);
    EXPECT_EQ(o.kind, Outcome::Kind::kFail) << c.payload;
    EXPECT_EQ(o.error, c.error);
  }
  EXPECT_TRUE(calls_.snapshot_ids.empty());
  EXPECT_TRUE(calls_.tenants.empty());
}

TEST_F(RegistryTest, ErrorsDoNotEchoThePayload) {
  for (const char* bad : {"{\"snapshot_id\": s3cretvalue}",
                          "{\"snapshot_id\": \"s3cretvalue\"}"}) {
    Outcome o = Dispatch("snapshot_validate", bad);
    EXPECT_EQ(o.kind, Outcome::Kind::kFail);
    EXPECT_EQ(o.error.find("s3cret"), std::string::npos) << o.error;
  }
}

TEST_F(RegistryTest, HandlerOutcomePassesThrough) {
  FakeContext ctx("snapshot_validate", "{\"snapshot_id\": 42}");
  Outcome o = registry_.Dispatch(ctx);
  EXPECT_EQ(o.kind, Outcome::Kind::kComplete);
  EXPECT_EQ(o.result, "{\"verdict\":\"ready\",\"id\":42}");
  EXPECT_EQ(calls_.snapshot_ids, std::vector<int64_t>{42});
  EXPECT_EQ(calls_.last_ctx, &ctx);  // the handler got the caller's context
  EXPECT_EQ(ctx.checkpoints, 1);

  o = Dispatch("gc_sweep", "{\"tenant_id\": \"locked\"}");
  EXPECT_EQ(o.kind, Outcome::Kind::kDefer);
  EXPECT_EQ(o.delay_secs, 30);
  o = Dispatch("gc_sweep", "{\"tenant_id\": \"flaky\"}");
  EXPECT_EQ(o.kind, Outcome::Kind::kRetry);
  EXPECT_EQ(o.error, "store timeout");
  o = Dispatch("gc_sweep", "{\"tenant_id\": \"t1\"}");
  EXPECT_EQ(o.kind, Outcome::Kind::kFail);
  EXPECT_EQ(o.error, "tenant gone");
  EXPECT_EQ(calls_.tenants,
            (std::vector<std::string>{"locked", "flaky", "t1"}));
}

TEST_F(RegistryTest, AddReplacesAnEarlierHandler) {
  registry_.Add<SnapshotPayload>("snapshot_validate", DecodeSnapshotPayload,
                                 [](JobContext&, const SnapshotPayload&) {
                                   return Outcome::Retry("replaced");
                                 });
  Outcome o = Dispatch("snapshot_validate", "{\"snapshot_id\": 1}");
  EXPECT_EQ(o.kind, Outcome::Kind::kRetry);
  EXPECT_EQ(o.error, "replaced");
  EXPECT_EQ(registry_.Kinds().size(), 2u);
}

TEST_F(RegistryTest, AHandlerExceptionDoesNotEscapeDispatch) {
  registry_.Add<SnapshotPayload>(
      "snapshot_scrub", DecodeSnapshotPayload,
      [](JobContext&, const SnapshotPayload&) -> Outcome {
        throw std::runtime_error("boom with s3cretvalue");
      });
  Outcome o = Dispatch("snapshot_scrub", "{\"snapshot_id\": 1}");
  // Retried, so max_attempts bounds it; the exception text is not kept.
  EXPECT_EQ(o.kind, Outcome::Kind::kRetry);
  EXPECT_EQ(o.error, "handler raised an exception");
  EXPECT_EQ(o.error.find("s3cret"), std::string::npos) << o.error;
}

}  // namespace
}  // namespace awc::handlers
