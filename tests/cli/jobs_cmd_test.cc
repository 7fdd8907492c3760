// Jobs and dead letters through awcctl: the dead reason of each way a job
// dies, jobs list|show|cancel|retry, dlq list|retry|purge with their
// guards, dry runs and counts, and enqueue's checks.
#include <gtest/gtest.h>

#include "common/json.h"
#include "tests/support/harness.h"

namespace awc::testing {
namespace {

using Env = std::vector<std::pair<std::string, std::string>>;

JsonPtr MustParse(const std::string& text) {
  Result<JsonPtr> j = ParseJson(text);
  EXPECT_TRUE(j.ok()) << text;
  return j.ok() ? std::move(*j) : JsonPtr(json_object());
}

class AwcctlJobsTest : public ::testing::Test {
 protected:
  void SetUp() override { db_.Migrate(); }
  CommandResult Run(std::vector<std::string> args) {
    return RunAwcctl(std::move(args), {{"DATABASE_URL", db_.url()}});
  }
  // `awcctl jobs show ID --json`.
  JsonPtr Show(int64_t id) {
    CommandResult r = Run({"jobs", "show", std::to_string(id), "--json"});
    EXPECT_EQ(r.code, 0) << r.err;
    return MustParse(r.out);
  }
  // A dead letter of `kind` that failed `age` ago.
  int64_t DeadLetter(const std::string& kind, const std::string& reason,
                     const std::string& age = "0 seconds") {
    return db_.Int(
        "INSERT INTO awc.jobs (kind, state, attempts, dead_reason, last_error, "
        "finished_at) VALUES ($1, 'FAILED', 5, $2, 'it failed', now() - $3::"
        "interval) RETURNING id",
        {kind, reason, age});
  }
  int64_t Count(const std::string& where) {
    return db_.Int("SELECT count(*) FROM awc.jobs WHERE " + where);
  }

  TestDatabase db_;
};

TEST_F(AwcctlJobsTest, EveryWayAJobDiesRecordsItsReason) {
  // An expired lease whose attempts are spent: reclaimed as a dead letter.
  int64_t lease = db_.Int(
      "INSERT INTO awc.jobs (kind, state, attempts, max_attempts, locked_by, "
      "locked_until, lease_token) VALUES ('test_complete', 'RUNNING', 1, 1, "
      "'gone-1', now() - interval '1 minute', 1) RETURNING id");
  struct Case {
    int64_t id;
    const char* reason;
  };
  const Case cases[] = {
      {db_.Enqueue("test_sleep", R"({"ms": "1"})"), "malformed_payload"},
      {db_.Enqueue("no_such_kind", "{}"), "unknown_kind"},
      {db_.Enqueue("snapshot_validate", R"({"snapshot_id": 424242})"),
       "subject_missing"},
      {db_.Enqueue("workspace_expire", R"({"workspace_id": 424242})"),
       "subject_missing"},
      {db_.Enqueue("gc_sweep", R"({"tenant_id": "nobody"})"),
       "subject_missing"},
      {db_.Enqueue("test_retry", "{}", 1), "attempts_exhausted"},
      {lease, "attempts_exhausted"},
      {db_.Enqueue("test_fail", "{}"), "handler_failed"},
  };
  DaemonProcess fleet(FleetOptions(db_, 2));
  for (const Case& c : cases) {
    ASSERT_TRUE(WaitUntil([&] { return db_.JobState(c.id) == "FAILED"; }))
        << c.id << " " << fleet.Stderr();
  }
  ASSERT_TRUE(
      fleet.WaitForEvent("job dead-lettered", 30, std::size(cases) - 1));
  for (const Case& c : cases) {
    JsonPtr job = Show(c.id);
    EXPECT_EQ(Str(job.get(), "dead_reason"), c.reason) << c.id;
    EXPECT_EQ(Str(job.get(), "state"), "FAILED");
    // The event says it too (the reclaimed one as a dead letter as well).
    bool seen = false;
    for (const JsonPtr& e : fleet.Events()) {
      if (Str(e.get(), "id") == "job_" + std::to_string(c.id) &&
          Str(e.get(), "state") == "FAILED") {
        EXPECT_EQ(Str(e.get(), "dead_reason"), c.reason) << c.id;
        seen = true;
      }
    }
    EXPECT_TRUE(seen) << c.id << " " << fleet.Stderr();
  }
  // The reasons are what dlq filters on.
  CommandResult subject =
      Run({"dlq", "list", "--reason", "subject_missing", "--json"});
  ASSERT_EQ(subject.code, 0) << subject.err;
  EXPECT_EQ(Int(MustParse(subject.out).get(), "count"), 3);
  // A job that completes has none.
  int64_t ok = db_.Enqueue("test_complete", "{}");
  ASSERT_TRUE(WaitUntil([&] { return db_.JobState(ok) == "COMPLETED"; }));
  EXPECT_TRUE(json_is_null(json_object_get(Show(ok).get(), "dead_reason")));
}

TEST_F(AwcctlJobsTest, ListShowCancelRetry) {
  int64_t pending = db_.Enqueue("gc_sweep", R"({"tenant_id": "t1"})");
  int64_t done = db_.Int(
      "INSERT INTO awc.jobs (kind, state, result, finished_at) VALUES "
      "('test_complete', 'COMPLETED', '{\"ok\": true}', now()) RETURNING id");
  int64_t dead = DeadLetter("gc_sweep", "subject_missing");

  // The old form of the listing still works, filters included.
  CommandResult legacy = Run({"jobs", "--state", "FAILED"});
  ASSERT_EQ(legacy.code, 0) << legacy.err;
  EXPECT_NE(legacy.out.find("subject_missing"), std::string::npos);
  EXPECT_EQ(legacy.out.find("COMPLETED"), std::string::npos);
  CommandResult list = Run({"jobs", "list", "--kind", "gc_sweep", "--json"});
  ASSERT_EQ(list.code, 0);
  JsonPtr doc = MustParse(list.out);
  const json_t* jobs = json_object_get(doc.get(), "jobs");
  ASSERT_EQ(json_array_size(jobs), 2u);
  EXPECT_EQ(Int(json_array_get(jobs, 0), "id"), dead);  // newest first
  EXPECT_EQ(Int(json_array_get(jobs, 1), "id"), pending);
  EXPECT_EQ(Str(json_array_get(jobs, 0), "last_error"), "it failed");

  // show: text and JSON; payload and result as JSON.
  CommandResult text = Run({"jobs", "show", std::to_string(done)});
  ASSERT_EQ(text.code, 0);
  EXPECT_NE(text.out.find("result:             {\"ok\": true}"),
            std::string::npos)
      << text.out;
  // A finished job names the worker of its last claim as such.
  EXPECT_NE(text.out.find("last lease holder: "), std::string::npos)
      << text.out;
  EXPECT_EQ(text.out.find("\nlease holder: "), std::string::npos) << text.out;
  JsonPtr shown = Show(pending);
  EXPECT_EQ(Str(json_object_get(shown.get(), "payload"), "tenant_id"), "t1");
  EXPECT_EQ(Int(shown.get(), "max_attempts"), 5);
  CommandResult missing = Run({"jobs", "show", "999999"});
  EXPECT_EQ(missing.code, 1);
  EXPECT_TRUE(missing.err.ends_with("awcctl: job 999999 does not exist\n"))
      << missing.err;

  // cancel: the pending one; the completed one is left alone (exit 1).
  CommandResult cancel = Run({"jobs", "cancel", std::to_string(pending),
                              std::to_string(done), "999999"});
  EXPECT_EQ(cancel.code, 1);
  EXPECT_EQ(cancel.out,
            "cancelled " + std::to_string(pending) + "\n" +
                std::to_string(done) +
                ": not cancelled, it is COMPLETED (only PENDING or RUNNING "
                "jobs are)\n999999: no such job\ncancelled 1 of 3 jobs\n");
  EXPECT_EQ(db_.JobState(pending), "CANCELLED");
  EXPECT_EQ(db_.JobState(done), "COMPLETED");

  // retry: the cancelled and the dead one come back fresh.
  CommandResult retry = Run({"jobs", "retry", std::to_string(pending),
                             std::to_string(dead), "--json"});
  EXPECT_EQ(retry.code, 0) << retry.out << retry.err;
  EXPECT_EQ(Int(MustParse(retry.out).get(), "retried"), 2);
  EXPECT_EQ(db_.Scalar("SELECT string_agg(state || '/' || attempts || '/' || "
                       "coalesce(dead_reason, '-') || '/' || (finished_at IS "
                       "NULL), ',' ORDER BY id) FROM awc.jobs WHERE id IN "
                       "($1, $2)",
                       {std::to_string(pending), std::to_string(dead)}),
            "PENDING/0/-/true,PENDING/0/-/true");
  // Retrying a pending job changes nothing.
  EXPECT_EQ(Run({"jobs", "retry", std::to_string(pending)}).code, 1);
}

// show lists every attempt that ended in an error, not only the last.
TEST_F(AwcctlJobsTest, ShowListsTheErrorOfEachAttempt) {
  int64_t id = db_.Int(
      "INSERT INTO awc.jobs (kind, state, attempts, locked_by) VALUES "
      "('k', 'RUNNING', 1, 'w-9') RETURNING id");
  std::string sid = std::to_string(id);
  db_.Exec(
      "UPDATE awc.jobs SET state = 'PENDING', last_error = 'first "
      "try' WHERE id = $1",
      {sid});
  db_.Exec("UPDATE awc.jobs SET state = 'RUNNING', attempts = 2 WHERE id = $1",
           {sid});
  db_.Exec(
      "UPDATE awc.jobs SET state = 'FAILED', last_error = 'second "
      "try', dead_reason = 'handler_failed' WHERE id = $1",
      {sid});
  CommandResult text = Run({"jobs", "show", sid});
  ASSERT_EQ(text.code, 0) << text.err;
  size_t errors = text.out.find("\nerrors:\nATTEMPT");
  ASSERT_NE(errors, std::string::npos) << text.out;
  size_t first = text.out.find("first try", errors);
  EXPECT_NE(first, std::string::npos) << text.out;
  EXPECT_NE(text.out.find("second try", first), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("w-9", errors), std::string::npos) << text.out;
  JsonPtr shown = Show(id);
  const json_t* list = json_object_get(shown.get(), "errors");
  ASSERT_EQ(json_array_size(list), 2u);
  EXPECT_EQ(Int(json_array_get(list, 0), "attempt"), 1);
  EXPECT_EQ(Str(json_array_get(list, 0), "error"), "first try");
  EXPECT_EQ(Str(json_array_get(list, 0), "state"), "PENDING");
  EXPECT_EQ(Str(json_array_get(list, 1), "dead_reason"), "handler_failed");
  // A job with none shows none.
  CommandResult clean =
      Run({"jobs", "show", std::to_string(DeadLetter("k", "handler_failed"))});
  EXPECT_EQ(clean.out.find("errors:"), std::string::npos) << clean.out;
}

TEST_F(AwcctlJobsTest, DeadLetterRetryByReasonWithADryRunFirst) {
  int64_t a = DeadLetter("gc_sweep", "subject_missing");
  int64_t b = DeadLetter("snapshot_scrub", "subject_missing");
  int64_t c = DeadLetter("gc_sweep", "handler_failed");

  CommandResult dry =
      Run({"dlq", "retry", "--reason", "subject_missing", "--dry-run"});
  ASSERT_EQ(dry.code, 0) << dry.err;
  EXPECT_NE(dry.out.find("would retry 2 dead letters\n"), std::string::npos)
      << dry.out;
  EXPECT_EQ(Count("state = 'FAILED'"), 3);

  CommandResult narrowed = Run(
      {"dlq", "retry", "--reason", "subject_missing", "--kind", "gc_sweep"});
  ASSERT_EQ(narrowed.code, 0) << narrowed.err;
  EXPECT_EQ(narrowed.out, "retried 1 dead letter\n");
  EXPECT_EQ(db_.JobState(a), "PENDING");
  EXPECT_EQ(db_.JobState(b), "FAILED");

  CommandResult by_id =
      Run({"dlq", "retry", std::to_string(b), std::to_string(a), "--json"});
  EXPECT_EQ(by_id.code, 1);  // a is not a dead letter any more
  JsonPtr doc = MustParse(by_id.out);
  EXPECT_EQ(Int(doc.get(), "retried"), 1);
  const json_t* missed = json_object_get(doc.get(), "not_dead_letters");
  ASSERT_EQ(json_array_size(missed), 1u);
  EXPECT_EQ(json_integer_value(json_array_get(missed, 0)), a);

  CommandResult all = Run({"dlq", "retry", "--all"});
  ASSERT_EQ(all.code, 0);
  EXPECT_EQ(all.out, "retried 1 dead letter\n");
  EXPECT_EQ(db_.JobState(c), "PENDING");
  EXPECT_EQ(Count("state = 'FAILED'"), 0);
  EXPECT_EQ(Count("attempts <> 0 OR dead_reason IS NOT NULL"), 0);
  CommandResult none = Run({"dlq", "retry", "--all"});
  EXPECT_EQ(none.code, 0);
  EXPECT_EQ(none.out, "retried 0 dead letters\n");
}

TEST_F(AwcctlJobsTest, DeadLetterPurgeByAgeKindOrAll) {
  int64_t old_gc = DeadLetter("gc_sweep", "handler_failed", "10 days");
  int64_t old_scrub = DeadLetter("snapshot_scrub", "handler_failed", "10 days");
  int64_t fresh = DeadLetter("gc_sweep", "handler_failed");
  int64_t alive = db_.Enqueue("gc_sweep", R"({"tenant_id": "t1"})");

  // The bulk guard: no selection, no change.
  CommandResult guard = Run({"dlq", "purge"});
  EXPECT_EQ(guard.code, 2);
  EXPECT_NE(guard.err.find("dlq purge needs IDs or a filter; --all acts on "
                           "every dead letter"),
            std::string::npos)
      << guard.err;
  EXPECT_EQ(Count("true"), 4);

  CommandResult dry =
      Run({"dlq", "purge", "--older-than", "7d", "--dry-run", "--json"});
  ASSERT_EQ(dry.code, 0) << dry.err;
  JsonPtr doc = MustParse(dry.out);
  EXPECT_EQ(Int(doc.get(), "would_purge"), 2);
  EXPECT_EQ(json_array_size(json_object_get(doc.get(), "dead_letters")), 2u);
  EXPECT_EQ(Count("true"), 4);

  CommandResult aged =
      Run({"dlq", "purge", "--older-than", "7d", "--kind", "gc_sweep"});
  ASSERT_EQ(aged.code, 0) << aged.err;
  EXPECT_EQ(aged.out, "purged 1 dead letter\n");
  EXPECT_EQ(db_.JobState(old_gc), "");
  EXPECT_EQ(db_.JobState(old_scrub), "FAILED");

  // A named job that is not a dead letter is not touched, and said so.
  CommandResult named =
      Run({"dlq", "purge", std::to_string(old_scrub), std::to_string(alive)});
  EXPECT_EQ(named.code, 1);
  EXPECT_EQ(named.out, std::to_string(alive) +
                           ": not a dead letter\npurged 1 dead letter\n");
  EXPECT_EQ(db_.JobState(alive), "PENDING");

  CommandResult all = Run({"dlq", "purge", "--all"});
  ASSERT_EQ(all.code, 0);
  EXPECT_EQ(all.out, "purged 1 dead letter\n");
  EXPECT_EQ(db_.JobState(fresh), "");
  EXPECT_EQ(Count("true"), 1);
}

TEST_F(AwcctlJobsTest, DeadLetterListFiltersAndCounts) {
  for (int i = 0; i < 3; ++i) DeadLetter("gc_sweep", "handler_failed");
  DeadLetter("snapshot_scrub", "unknown_kind");
  CommandResult r = Run({"dlq", "--limit", "2"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("showing 2 of 4 dead letters"), std::string::npos)
      << r.err;
  CommandResult kind =
      Run({"dlq", "list", "--kind", "snapshot_scrub", "--json"});
  JsonPtr doc = MustParse(kind.out);
  EXPECT_EQ(Int(doc.get(), "count"), 1);
  EXPECT_EQ(Str(json_array_get(json_object_get(doc.get(), "dead_letters"), 0),
                "dead_reason"),
            "unknown_kind");
}

TEST_F(AwcctlJobsTest, EnqueueChecksKindAndPayloadUnlessForced) {
  CommandResult bad =
      Run({"enqueue", "snapshot_validate", R"({"snapshot": 1})"});
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find("malformed payload: "), std::string::npos) << bad.err;
  EXPECT_EQ(Count("true"), 0);
  CommandResult unknown = Run({"enqueue", "newer_kind", "{}"});
  EXPECT_EQ(unknown.code, 2);
  CommandResult forced =
      Run({"enqueue", "newer_kind", "{}", "--force", "--json"});
  ASSERT_EQ(forced.code, 0) << forced.err;
  int64_t id = Int(MustParse(forced.out).get(), "id");
  EXPECT_EQ(db_.Scalar("SELECT kind FROM awc.jobs WHERE id = $1",
                       {std::to_string(id)}),
            "newer_kind");
  // --force skips the check, not the limits of every job.
  CommandResult long_kind =
      Run({"enqueue", std::string(129, 'k'), "{}", "--force"});
  EXPECT_EQ(long_kind.code, 2);
  EXPECT_TRUE(long_kind.err.starts_with(
      "awcctl: KIND is longer than 128 bytes (129)\n"))
      << long_kind.err;
  EXPECT_EQ(Count("kind LIKE 'kkk%'"), 0);
  CommandResult good = Run({"enqueue", "snapshot_validate",
                            R"({"snapshot_id": 3})", "--max-attempts", "2"});
  ASSERT_EQ(good.code, 0) << good.err;
  EXPECT_EQ(Count("kind = 'snapshot_validate' AND max_attempts = 2"), 1);
}

}  // namespace
}  // namespace awc::testing
