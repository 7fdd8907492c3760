#include "console/router.h"

#include <gtest/gtest.h>

#include "common/json.h"
#include "console/read_model_test_fixture.h"

namespace awc::console {
namespace {

constexpr const char* kHostile = "<script>alert(1)</script>";
constexpr const char* kEscaped = "&lt;script&gt;alert(1)&lt;/script&gt;";
constexpr double kNow = 1796031896;  // 2026-11-30T09:44:56Z

Clock TheClock() { return Clock{kNow, "2026-11-30T09:44:56Z"}; }

queue::JobRow HostileJob(int64_t id) {
  queue::JobRow r;
  r.id = id;
  r.kind = kHostile;
  r.state = "FAILED";
  r.attempts = 1;
  r.max_attempts = 5;
  r.run_at = "2026-11-30T09:40:00Z";
  r.updated_at = "2026-11-30T09:41:56Z";
  r.finished_at = "2026-11-30T09:41:56Z";
  r.locked_by = "<b>w-1</b>";
  r.dead_reason = "handler_failed";
  r.last_error = std::string("boom: ") + kHostile;
  return r;
}

class RouterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    FakeReadModel& m = model_;
    m.overview.clock = TheClock();
    m.overview.queue.push_back(KindDepth{kHostile, 3, 1, 2, 4, 0, 10000, 65});
    m.overview.dead_by_reason = {{"handler_failed", 4}};
    fleet::WorkerRow w;
    w.host = "<i>host</i>";
    w.slot = 1;
    w.worker_id = "w-1";
    w.state = "busy";
    w.job_id = 7;
    w.job_kind = kHostile;
    w.heartbeat_age = 3;
    w.fresh = true;
    w.started_at = "2026-11-30T09:00:00Z";
    m.overview.workers = {w};
    m.overview.snapshots = {{"READY", 3}};
    m.overview.epochs = {gc::EpochSummary{kHostile, 9, "COMPLETED", false, 5, 4,
                                          1, "2026-11-30T09:00:00Z", 60.0}};

    m.jobs.clock = TheClock();
    m.jobs.rows = {HostileJob(12), HostileJob(11)};
    m.jobs.older = true;
    m.job.clock = TheClock();
    m.job.job.row = HostileJob(12);
    m.job.job.payload = std::string("{\"x\": \"</pre>") + kHostile + "\"}";
    m.dead.clock = TheClock();
    m.dead.by_kind = {{kHostile, 4}};
    m.dead.newest = {HostileJob(12)};
    m.dead.matching = 4;

    SnapshotRow s;
    s.id = 5;
    s.tenant_id = "acme";
    s.state = "FAILED";
    s.root_digest = "sha256:" + std::string(64, 'a');
    s.created_at = "2026-11-30T09:00:00Z";
    s.failure_code = kHostile;  // a producer could write anything there
    s.failure_digest = kHostile;
    s.failure = std::string(
        "{\"code\": \"malformed_manifest\", \"detail\": "
        "\"entry 3 named <img src=x onerror=alert(1)>\"}");
    m.snapshots.clock = TheClock();
    m.snapshots.rows = {s};
    m.snapshot.clock = TheClock();
    m.snapshot.snapshot = s;
    m.snapshot.history = {
        AuditRow{1, "acme", "snapshot.scrub", "snapshot/5",
                 std::string("{\"bad\": \"") + kHostile + "\"}",
                 "2026-11-30T09:10:00Z"}};
    m.gc.epochs.clock = TheClock();
    m.gc.locks = {GcLockRow{"acme", kHostile, "", "", false}};
    m.audit.clock = TheClock();
    m.audit.rows = m.snapshot.history;
  }

  http::HttpResponse Get(const std::string& path, http::QueryArgs query = {},
                        const std::string& host = "127.0.0.1:8080") {
    http::HttpRequest r;
    r.method = "GET";
    r.path = path;
    r.query = std::move(query);
    r.host = host;
    return router_.Handle(r);
  }

  FakeReadModel model_;
  Router router_{model_, "postgresql://awc@db:5432/awc", true};
};

TEST_F(RouterTest, EveryPageRendersHostileValuesAsText) {
  const char* pages[] = {"/",          "/jobs",        "/jobs/12", "/dead",
                         "/snapshots", "/snapshots/5", "/gc",      "/audit"};
  for (const char* path : pages) {
    http::HttpResponse r = Get(path);
    EXPECT_EQ(r.status, 200) << path << r.body;
    EXPECT_EQ(r.content_type, "text/html; charset=utf-8");
    EXPECT_EQ(r.body.find("<script"), std::string::npos) << path;
    EXPECT_EQ(r.body.find("<img"), std::string::npos) << path;
    EXPECT_EQ(r.body.find("<i>"), std::string::npos) << path;
    EXPECT_EQ(r.body.find("<b>w-1"), std::string::npos) << path;
    EXPECT_NE(r.body.find(kEscaped), std::string::npos) << path;
    EXPECT_TRUE(r.body.starts_with("<!DOCTYPE html>")) << path;
    EXPECT_NE(r.body.find("postgresql://awc@db:5432/awc"), std::string::npos);
  }
}

TEST_F(RouterTest, JobsPassFiltersAndCursorToTheModelAndLinkOnwards) {
  http::HttpResponse r =
      Get("/jobs", {{"state", "FAILED"}, {"kind", kHostile}, {"before", "13"}});
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(model_.job_filter.state, "FAILED");
  EXPECT_EQ(model_.job_filter.kind, kHostile);
  EXPECT_EQ(model_.page_request.before, 13);
  EXPECT_FALSE(model_.page_request.after.has_value());
  EXPECT_EQ(model_.page_request.limit, 50);
  // The older page continues below the last row, with the same filters.
  EXPECT_NE(r.body.find("href=\"/jobs?state=FAILED&amp;kind=%3Cscript%3Ealert"
                        "%281%29%3C%2Fscript%3E&amp;before=11\""),
            std::string::npos)
      << r.body;
  EXPECT_NE(r.body.find("href=\"/jobs/12\""), std::string::npos);
  EXPECT_NE(r.body.find("<option value=\"FAILED\" selected>"),
            std::string::npos);
}

TEST_F(RouterTest, BadArgumentsAre400sNamingThemBeforeAnyRead) {
  struct Case {
    const char* path;
    http::QueryArgs query;
    const char* says;
  };
  const Case cases[] = {
      {"/jobs", {{"state", "DONE"}}, "state must be one of PENDING"},
      {"/jobs", {{"reason", "x"}}, "reason must be one of malformed_payload"},
      {"/jobs", {{"before", "-1"}}, "before must be a positive integer"},
      {"/jobs", {{"before", "12abc"}}, "before must be a positive integer"},
      {"/jobs", {{"after", "99999999999999999999"}}, "after must be"},
      {"/jobs", {{"before", "2"}, {"after", "1"}}, "not together"},
      {"/jobs", {{"kind", std::string("a\0b", 3)}}, "kind is not UTF-8 text"},
      {"/jobs", {{"kind", "\xff"}}, "kind is not UTF-8 text"},
      {"/jobs", {{"kind", std::string(201, 'k')}}, "longer than 200 bytes"},
      {"/snapshots", {{"state", "OK"}}, "state must be one of VALIDATING"},
      {"/audit", {{"subject", "\x01"}}, "subject is not UTF-8"},
      {"/", {{"refresh", "1"}}, "refresh must be 0 (off) or 5 to 3600"},
      {"/jobs/abc", {}, "jobs id must be a positive integer"},
      {"/jobs/0", {}, "jobs id must be a positive integer"},
      {"/snapshots/-5", {}, "snapshots id must be a positive integer"},
  };
  for (const Case& c : cases) {
    http::HttpResponse r = Get(c.path, c.query);
    EXPECT_EQ(r.status, 400) << c.path;
    EXPECT_NE(r.body.find(c.says), std::string::npos) << c.path << r.body;
  }
  EXPECT_TRUE(model_.calls.empty());
}

TEST_F(RouterTest, UnknownPagesAndRowsAre404s) {
  EXPECT_EQ(Get("/nope").status, 404);
  http::HttpResponse r = Get(std::string("/") + kHostile);
  EXPECT_EQ(r.status, 404);
  EXPECT_EQ(r.body.find("<script"), std::string::npos);
  EXPECT_EQ(Get("/jobs/99").status, 404);
  EXPECT_NE(Get("/jobs/99").body.find("There is no job 99."),
            std::string::npos);
  EXPECT_EQ(Get("/snapshots/99").status, 404);
  EXPECT_EQ(Get("/favicon.ico").status, 204);
}

TEST_F(RouterTest, ADatabaseErrorIsA503PageThatRetries) {
  model_.failure = Status::Transient("connection refused on db:5432");
  for (const char* path : {"/", "/jobs", "/jobs/12", "/dead", "/snapshots",
                           "/snapshots/5", "/gc", "/audit"}) {
    http::HttpResponse r = Get(path);
    EXPECT_EQ(r.status, 503) << path;
    EXPECT_NE(r.body.find("Database unavailable"), std::string::npos);
    EXPECT_NE(r.body.find("connection refused on db:5432"), std::string::npos);
    EXPECT_NE(r.body.find("<meta http-equiv=\"refresh\" content=\"5\">"),
              std::string::npos);
  }
  http::HttpResponse api = Get("/api/overview");
  EXPECT_EQ(api.status, 503);
  EXPECT_EQ(api.body, "{\"error\":\"connection refused on db:5432\"}\n");
  model_.failure = Status::OK();
  EXPECT_EQ(Get("/").status, 200);
}

TEST_F(RouterTest, OnlyLoopbackHostsWhenListeningOnLoopback) {
  EXPECT_EQ(Get("/", {}, "evil.example:8080").status, 403);
  EXPECT_EQ(Get("/", {}, "127.0.0.1.evil.example").status, 403);
  EXPECT_EQ(Get("/", {}, "localhost:8080").status, 200);
  EXPECT_EQ(Get("/", {}, "").status, 200);
  EXPECT_EQ(model_.calls.size(), 2u);
  Router open(model_, "t", false);
  http::HttpRequest r;
  r.method = "GET";
  r.path = "/";
  r.host = "console.example:8080";
  EXPECT_EQ(open.Handle(r).status, 200);
}

TEST(LoopbackHostTest, NamesAndAddresses) {
  for (const char* yes :
       {"", "localhost", "LOCALHOST:80", "localhost.", "127.0.0.1",
        "127.0.0.1:8080", "127.1.2.3:1", "[::1]", "[::1]:8080"}) {
    EXPECT_TRUE(IsLoopbackHost(yes)) << yes;
  }
  for (const char* no :
       {"example.com", "localhost.example.com", "127.0.0.1.nip.io", "128.0.0.1",
        "127.0.0", "127.0.0.1.5", "127.0.0.256", "[::2]:80", "[::1]x", "[::1",
        "0.0.0.0:8080", "10.0.0.1"}) {
    EXPECT_FALSE(IsLoopbackHost(no)) << no;
  }
}

TEST_F(RouterTest, SecurityHeadersForbidScriptsAndFraming) {
  http::HttpHeaders h = Router::SecurityHeaders();
  auto value = [&](const std::string& name) {
    for (const auto& [n, v] : h) {
      if (n == name) return v;
    }
    return std::string();
  };
  std::string csp = value("Content-Security-Policy");
  EXPECT_TRUE(csp.starts_with("default-src 'none'; style-src 'unsafe-inline'"))
      << csp;
  EXPECT_EQ(csp.find("script-src"), std::string::npos);
  EXPECT_EQ(value("X-Content-Type-Options"), "nosniff");
  EXPECT_EQ(value("X-Frame-Options"), "DENY");
}

TEST_F(RouterTest, RefreshIsKeptByTheLinksAndReloadsThePage) {
  http::HttpResponse r = Get("/jobs", {{"refresh", "10"}, {"state", "FAILED"}});
  ASSERT_EQ(r.status, 200);
  EXPECT_NE(r.body.find("<meta http-equiv=\"refresh\" content=\"10\">"),
            std::string::npos);
  EXPECT_NE(r.body.find("href=\"/dead?refresh=10\""), std::string::npos);
  EXPECT_NE(r.body.find("state=FAILED&amp;refresh=10&amp;before=11"),
            std::string::npos)
      << r.body;
  EXPECT_EQ(Get("/jobs").body.find("http-equiv"), std::string::npos);
}

TEST_F(RouterTest, ApiOverviewIsJson) {
  http::HttpResponse r = Get("/api/overview");
  ASSERT_EQ(r.status, 200);
  EXPECT_EQ(r.content_type, "application/json");
  Result<JsonPtr> doc = ParseJson(r.body);
  ASSERT_TRUE(doc.ok()) << r.body;
  json_t* queue = json_object_get(doc->get(), "queue");
  ASSERT_EQ(json_array_size(queue), 1u);
  json_t* k = json_array_get(queue, 0);
  EXPECT_STREQ(json_string_value(json_object_get(k, "kind")), kHostile);
  EXPECT_EQ(json_integer_value(json_object_get(k, "ready")), 3);
  EXPECT_TRUE(json_is_true(json_object_get(k, "completed_capped")));
  EXPECT_EQ(json_real_value(json_object_get(k, "oldest_ready_s")), 65);
  EXPECT_EQ(json_integer_value(json_object_get(
                json_object_get(doc->get(), "snapshots"), "READY")),
            3);
}

TEST_F(RouterTest, TheSchedulerSectionShowsTheLeaderAndTheSchedules) {
  EXPECT_NE(Get("/").body.find("No scheduler has led yet."), std::string::npos);
  Result<JsonPtr> none = ParseJson(Get("/api/overview").body);
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(json_is_null(
      json_object_get(json_object_get(none->get(), "scheduler"), "leader")));
  SchedulerView& s = model_.overview.scheduler;
  s.leader = scheduler::LeaseRow{"host-a/1234", 7, "2026-11-30T09:45:20Z",
                                 false};
  scheduler::ScheduleRow gc;
  gc.name = "gc";
  gc.spec = "@hourly";
  gc.builtin = true;
  gc.next_run_at = "2026-11-30T10:00:00Z";
  gc.last_run_at = "2026-11-30T09:00:00Z";
  gc.last_result = std::string("{\"error\": \"") + kHostile + "\"}";
  gc.runs = 3;
  scheduler::ScheduleRow mine = gc;
  mine.name = "nightly";
  mine.kind = kHostile;
  mine.builtin = false;
  mine.paused = true;
  s.schedules = {gc, mine};
  std::string body = Get("/").body;
  EXPECT_NE(body.find("<code>host-a/1234</code>, token 7, lease ends <time"),
            std::string::npos)
      << body;
  EXPECT_NE(body.find(">in 15 min</time>"), std::string::npos) << body;
  EXPECT_NE(body.find("st-warn\">paused</span>"), std::string::npos);
  EXPECT_EQ(body.find("<script"), std::string::npos);
  Result<JsonPtr> doc = ParseJson(Get("/api/overview").body);
  ASSERT_TRUE(doc.ok());
  json_t* sched = json_object_get(doc->get(), "scheduler");
  EXPECT_STREQ(json_string_value(json_object_get(
                   json_object_get(sched, "leader"), "holder")),
               "host-a/1234");
  json_t* rows = json_object_get(sched, "schedules");
  ASSERT_EQ(json_array_size(rows), 2u);
  EXPECT_TRUE(json_is_true(json_object_get(json_array_get(rows, 0), "builtin")));
  EXPECT_STREQ(
      json_string_value(json_object_get(json_array_get(rows, 1), "kind")),
      kHostile);
}

}  // namespace
}  // namespace awc::console
