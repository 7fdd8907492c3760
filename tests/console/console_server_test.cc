// awcctl serve over HTTP, against a real database after a real fleet ran:
// every page and filter, paging, 405 for other methods, escaping of hostile
// values, the database going away and coming back.
#include <gtest/gtest.h>
#include <unistd.h>

#include <regex>
#include <set>

#include "common/json.h"
#include "tests/support/console_fixture.h"
#include "tests/support/scheduler_support.h"

namespace awc::testing {
namespace {

constexpr const char* kEscapedKind = "&lt;script&gt;alert(1)&lt;/script&gt;";

std::string Host() {
  char buf[256] = {};
  gethostname(buf, sizeof buf - 1);
  return buf;
}

// The job ids linked from a listing's rows, in page order.
std::vector<int64_t> JobIds(const std::string& body) {
  std::vector<int64_t> out;
  std::regex link("<td><a href=\"/jobs/([0-9]+)\">");
  for (auto it = std::sregex_iterator(body.begin(), body.end(), link);
       it != std::sregex_iterator(); ++it) {
    out.push_back(std::stoll((*it)[1]));
  }
  return out;
}

// The target of the link labelled `label` ("older →"), "" when none.
std::string LinkTo(const std::string& body, const std::string& label) {
  std::smatch m;
  std::regex link("<a href=\"([^\"]*)\">" + label);
  if (!std::regex_search(body, m, link)) return "";
  return std::regex_replace(m[1].str(), std::regex("&amp;"), "&");
}

class ConsoleTest : public ::testing::Test {
 protected:
  void SetUp() override { db_.Migrate(); }

  // Every response of the console carries these.
  static void ExpectSafeHeaders(const HttpReply& r, const std::string& what) {
    EXPECT_EQ(r.Header("Content-Security-Policy"),
              "default-src 'none'; style-src 'unsafe-inline'; base-uri "
              "'none'; form-action 'self'; frame-ancestors 'none'")
        << what;
    EXPECT_EQ(r.Header("X-Content-Type-Options"), "nosniff") << what;
  }

  TestDatabase db_;
};

TEST_F(ConsoleTest, EveryPageAndFilterAfterARealFleet) {
  DaemonProcess fleet(FleetOptions(db_, 2));
  FleetRun run = RunFleet(db_, fleet, 5);
  ConsoleProcess console(db_);
  ASSERT_TRUE(console.WaitListening()) << console.process().Stderr();

  HttpReply overview = console.Get("/");
  ASSERT_EQ(overview.status, 200) << overview.body;
  ExpectSafeHeaders(overview, "/");
  EXPECT_EQ(overview.Header("Content-Type"), "text/html; charset=utf-8");
  const std::string& o = overview.body;
  for (const char* text :
       {"Queue by kind", ">test_complete</a>", ">gc_sweep</a>",
        ">snapshot_validate</a>", ">test_sleep</a>", ">handler_failed</a>",
        ">unknown_kind</a>", ">acme</a>", "Snapshots by state",
        "Workspaces by state", "Last GC epoch per tenant"}) {
    EXPECT_NE(o.find(text), std::string::npos) << text;
  }
  EXPECT_NE(o.find(kEscapedKind), std::string::npos);
  EXPECT_EQ(o.find("<script"), std::string::npos);
  // Both workers by host, one busy with the sleeping job.
  EXPECT_NE(o.find("<td>" + Host() + "</td>"), std::string::npos);
  EXPECT_NE(o.find("<a href=\"/jobs/" + std::to_string(run.sleeping) + "\">"),
            std::string::npos);
  EXPECT_NE(o.find("st-run\">busy</span>"), std::string::npos);
  EXPECT_NE(o.find("st-ok\">fresh</span>"), std::string::npos);
  // The scheduled job counts as scheduled, the others by their state.
  EXPECT_NE(o.find("<a href=\"/jobs?kind=test_complete&amp;state=COMPLETED\">"
                   "5</a>"),
            std::string::npos)
      << o;

  // /api/overview agrees with the database.
  HttpReply api = console.Get("/api/overview");
  ASSERT_EQ(api.status, 200);
  EXPECT_EQ(api.Header("Content-Type"), "application/json");
  Result<JsonPtr> doc = ParseJson(api.body);
  ASSERT_TRUE(doc.ok()) << api.body;
  std::map<std::string, json_t*> kinds;
  json_t* queue = json_object_get(doc->get(), "queue");
  for (size_t i = 0; i < json_array_size(queue); ++i) {
    json_t* k = json_array_get(queue, i);
    kinds[json_string_value(json_object_get(k, "kind"))] = k;
  }
  ASSERT_EQ(kinds.count("test_complete"), 1u);
  json_t* tc = kinds["test_complete"];
  EXPECT_EQ(json_integer_value(json_object_get(tc, "completed")), 5);
  EXPECT_EQ(json_integer_value(json_object_get(tc, "scheduled")), 1);
  EXPECT_EQ(json_integer_value(json_object_get(tc, "cancelled")), 1);
  EXPECT_EQ(json_integer_value(json_object_get(tc, "ready")), 0);
  EXPECT_EQ(json_integer_value(json_object_get(kinds["test_sleep"], "running")),
            1);
  EXPECT_EQ(json_integer_value(json_object_get(kinds[kHostileKind], "failed")),
            1);
  EXPECT_EQ(json_array_size(json_object_get(doc->get(), "workers")), 2u);
  EXPECT_EQ(json_integer_value(json_object_get(
                json_object_get(doc->get(), "snapshots"), "FAILED")),
            1);

  // Jobs, filtered by state, kind and dead reason.
  HttpReply failed = console.Get("/jobs?state=FAILED");
  ASSERT_EQ(failed.status, 200);
  EXPECT_EQ(JobIds(failed.body),
            (std::vector<int64_t>{run.hostile, run.failed}));
  HttpReply by_kind = console.Get("/jobs?kind=test_complete");
  std::vector<int64_t> expect = {run.cancelled, run.scheduled};
  for (auto it = run.completed.rbegin(); it != run.completed.rend(); ++it) {
    expect.push_back(*it);
  }
  EXPECT_EQ(JobIds(by_kind.body), expect);
  EXPECT_EQ(JobIds(console.Get("/jobs?kind=test_complete&state=PENDING").body),
            std::vector<int64_t>{run.scheduled});
  EXPECT_EQ(JobIds(console.Get("/jobs?reason=unknown_kind").body),
            std::vector<int64_t>{run.hostile});
  EXPECT_EQ(
      JobIds(
          console.Get("/jobs?kind=%3Cscript%3Ealert(1)%3C%2Fscript%3E").body),
      std::vector<int64_t>{run.hostile});
  EXPECT_TRUE(JobIds(console.Get("/jobs?kind=nothing+like+it").body).empty());
  std::vector<int64_t> all = JobIds(console.Get("/jobs").body);
  EXPECT_EQ(all.size(), 5u + 7u);
  EXPECT_TRUE(std::is_sorted(all.rbegin(), all.rend()));

  // One job: payload, result, attempts, lease holder, error, dead reason.
  HttpReply job = console.Get("/jobs/" + std::to_string(run.failed));
  ASSERT_EQ(job.status, 200);
  for (const char* text :
       {"TEST-ERROR-TEXT permanent", ">handler_failed</a>", "1 of 5",
        "last lease holder", "<code>t-", "<h2>Errors</h2>",
        "<dt>priority</dt><dd>4</dd>"}) {
    EXPECT_NE(job.body.find(text), std::string::npos) << text;
  }
  // Its attempt's error in the error history too, after the last error.
  size_t history = job.body.find("<h2>Errors</h2>");
  EXPECT_NE(job.body.find("TEST-ERROR-TEXT permanent", history),
            std::string::npos)
      << job.body;
  EXPECT_EQ(job.body.find("no attempt ended in an error"), std::string::npos);
  HttpReply gc_job = console.Get("/jobs/" + std::to_string(run.gc));
  EXPECT_NE(gc_job.body.find("&quot;tenant_id&quot;: &quot;acme&quot;"),
            std::string::npos);
  EXPECT_NE(gc_job.body.find("&quot;verdict&quot;: &quot;completed&quot;"),
            std::string::npos)
      << gc_job.body;
  EXPECT_EQ(console.Get("/jobs/999999").status, 404);

  // Dead letters.
  HttpReply dead = console.Get("/dead");
  ASSERT_EQ(dead.status, 200);
  EXPECT_EQ(JobIds(dead.body), (std::vector<int64_t>{run.hostile, run.failed}));
  EXPECT_NE(dead.body.find("2 dead letters match"), std::string::npos);
  EXPECT_EQ(JobIds(console.Get("/dead?reason=handler_failed").body),
            std::vector<int64_t>{run.failed});
  EXPECT_EQ(JobIds(console.Get("/dead?kind=test_fail").body),
            std::vector<int64_t>{run.failed});

  // Snapshots: the failed validation's code and digest, and its history.
  HttpReply snaps = console.Get("/snapshots?tenant=acme&state=FAILED");
  ASSERT_EQ(snaps.status, 200);
  std::string sid = std::to_string(run.snapshot);
  EXPECT_NE(snaps.body.find("<a href=\"/snapshots/" + sid + "\">#" + sid),
            std::string::npos);
  EXPECT_NE(snaps.body.find("<code>missing_object</code>"), std::string::npos);
  EXPECT_NE(snaps.body.find("title=\"sha256:" + std::string(64, 'f') + "\""),
            std::string::npos);
  EXPECT_EQ(console.Get("/snapshots?tenant=globex&state=FAILED")
                .body.find("/snapshots/" + sid),
            std::string::npos);
  EXPECT_NE(console.Get("/snapshots?state=READY").body.find(">globex</a>"),
            std::string::npos);
  HttpReply acme = console.Get("/snapshots?tenant=acme");
  EXPECT_NE(acme.body.find("/snapshots/" + sid + "\""), std::string::npos);
  EXPECT_EQ(acme.body.find(">globex</a>"), std::string::npos);
  HttpReply globex = console.Get("/snapshots?tenant=globex");
  EXPECT_NE(globex.body.find(">globex</a>"), std::string::npos);
  EXPECT_EQ(globex.body.find("/snapshots/" + sid + "\""), std::string::npos);
  HttpReply snap = console.Get("/snapshots/" + sid);
  ASSERT_EQ(snap.status, 200);
  EXPECT_NE(snap.body.find("<code>snapshot.validate</code>"),
            std::string::npos);
  EXPECT_NE(snap.body.find("Failure record"), std::string::npos);

  // GC and the audit trail.
  HttpReply gc = console.Get("/gc?tenant=acme");
  ASSERT_EQ(gc.status, 200);
  EXPECT_NE(gc.body.find("st-ok\">COMPLETED"), std::string::npos);
  EXPECT_NE(gc.body.find("<a href=\"/jobs/" + std::to_string(run.gc) + "\">"),
            std::string::npos);
  EXPECT_EQ(console.Get("/gc?tenant=globex").body.find("st-ok\">COMPLETED"),
            std::string::npos);
  HttpReply audit = console.Get("/audit?event=gc.epoch");
  ASSERT_EQ(audit.status, 200);
  EXPECT_NE(audit.body.find(">gc.epoch</a>"), std::string::npos);
  EXPECT_EQ(audit.body.find("snapshot.validate"), std::string::npos);
  HttpReply subject = console.Get("/audit?subject=snapshot%2F" + sid);
  EXPECT_NE(subject.body.find(">snapshot.validate</a>"), std::string::npos);
  db_.Exec(
      "INSERT INTO awc.audit_events (tenant_id, event, subject) VALUES "
      "('globex', 'workspace.expiring', 'workspace/9999')");
  HttpReply of_acme = console.Get("/audit?tenant=acme");
  EXPECT_NE(of_acme.body.find(">gc.epoch</a>"), std::string::npos);
  EXPECT_NE(of_acme.body.find(">snapshot.validate</a>"), std::string::npos);
  EXPECT_EQ(of_acme.body.find("workspace/9999"), std::string::npos);
  HttpReply of_globex = console.Get("/audit?tenant=globex");
  EXPECT_NE(of_globex.body.find("workspace/9999"), std::string::npos);
  EXPECT_EQ(of_globex.body.find("gc.epoch"), std::string::npos);
  EXPECT_EQ(of_globex.body.find("snapshot.validate"), std::string::npos);

  // Bad arguments are named.
  HttpReply bad = console.Get("/jobs?state=DONE");
  EXPECT_EQ(bad.status, 400);
  ExpectSafeHeaders(bad, "400");
  EXPECT_NE(bad.body.find("state must be one of"), std::string::npos);
}

TEST_F(ConsoleTest, PagesThroughTheWholeHistoryNewestFirst) {
  DaemonProcess fleet(FleetOptions(db_, 2));
  FleetRun run = RunFleet(db_, fleet, 120);
  ConsoleProcess console(db_);
  ASSERT_TRUE(console.WaitListening()) << console.process().Stderr();

  std::vector<int64_t> seen;
  std::vector<std::string> pages;
  std::string target = "/jobs?kind=test_complete&state=COMPLETED";
  while (!target.empty()) {
    HttpReply page = console.Get(target);
    ASSERT_EQ(page.status, 200) << target;
    std::vector<int64_t> ids = JobIds(page.body);
    EXPECT_LE(ids.size(), 50u);
    seen.insert(seen.end(), ids.begin(), ids.end());
    pages.push_back(page.body);
    target = LinkTo(page.body, "older");
    ASSERT_LT(pages.size(), 10u);
  }
  EXPECT_EQ(pages.size(), 3u);
  std::vector<int64_t> expect(run.completed.rbegin(), run.completed.rend());
  EXPECT_EQ(seen, expect);

  // From the last page, "newer" leads back through the same pages.
  std::string newer = LinkTo(pages[2], "\xE2\x86\x90 newer");
  ASSERT_FALSE(newer.empty());
  EXPECT_EQ(JobIds(console.Get(newer).body), JobIds(pages[1]));
  EXPECT_TRUE(LinkTo(pages[0], "\xE2\x86\x90 newer").empty());
  std::string newest = LinkTo(pages[2], "\xE2\x87\xA4 newest");
  EXPECT_EQ(newest, "/jobs?state=COMPLETED&kind=test_complete");
  EXPECT_EQ(JobIds(console.Get(newest).body), JobIds(pages[0]));
}

TEST_F(ConsoleTest, OnlyGetAndHeadAnswerAndNothingChanges) {
  DaemonProcess fleet(FleetOptions(db_, 1));
  FleetRun run = RunFleet(db_, fleet, 2);
  ConsoleProcess console(db_);
  ASSERT_TRUE(console.WaitListening()) << console.process().Stderr();
  std::string before = db_.Scalar(
      "SELECT string_agg(id || state || attempts, ',' ORDER BY id) FROM "
      "awc.jobs");
  std::string dead = "/jobs/" + std::to_string(run.failed);
  for (const char* method : {"POST", "PUT", "DELETE", "PATCH", "OPTIONS"}) {
    for (const std::string& path :
         {std::string("/"), dead, std::string("/dead?reason=handler_failed")}) {
      HttpReply r = console.Send(std::string(method) + " " + path + " HTTP/1.0",
                                 "Content-Length: 5\r\n");
      EXPECT_EQ(r.status, 405) << method << " " << path;
      EXPECT_EQ(r.Header("Allow"), "GET, HEAD");
      ExpectSafeHeaders(r, method);
    }
  }
  HttpReply head = console.Send("HEAD " + dead + " HTTP/1.0");
  EXPECT_EQ(head.status, 200);
  EXPECT_TRUE(head.body.empty());
  EXPECT_GT(std::stoll(head.Header("Content-Length")), 1000);
  EXPECT_EQ(db_.Scalar("SELECT string_agg(id || state || attempts, ',' ORDER "
                       "BY id) FROM awc.jobs"),
            before);
  EXPECT_EQ(db_.JobState(run.failed), "FAILED");
  // One session, the one awcctl opened.
  EXPECT_EQ(db_.Scalar("SELECT count(*) FROM pg_stat_activity WHERE "
                       "datname = current_database() AND application_name "
                       "LIKE 'awcctl%'"),
            "1");
}

TEST_F(ConsoleTest, HostileValuesRenderAsText) {
  db_.Exec("INSERT INTO awc.tenants (id) VALUES ('acme')");
  int64_t id = db_.Enqueue(kHostileKind, R"({"x": "<img src=x onerror=y>"})");
  db_.Exec(
      "UPDATE awc.jobs SET state = 'FAILED', dead_reason = 'handler_failed', "
      "last_error = '<script>alert(3)</script> & \"quoted\"', "
      "locked_by = '<b>w</b>' WHERE id = $1",
      {std::to_string(id)});
  int64_t snap = db_.Int(
      "INSERT INTO awc.snapshots (tenant_id, root_digest, state, failure) "
      "VALUES ('acme', 'sha256:' || repeat('a', 64), 'FAILED', "
      "'{\"code\": \"<i>code</i>\", \"digest\": \"<u>d</u>\", \"detail\": "
      "\"entry named <script>alert(4)</script>\"}') RETURNING id");
  db_.Exec(
      "INSERT INTO awc.audit_events (tenant_id, event, subject, data) VALUES "
      "('acme', '<script>e</script>', 'snapshot/' || $1, "
      "'{\"name\": \"<script>alert(5)</script>\"}')",
      {std::to_string(snap)});
  // A tenant id is checked by awc.tenants, which every table of the
  // catalog and GC references: none can hold markup. The audit trail's
  // tenant_id is free text, and any can be asked for in a filter.
  EXPECT_FALSE(
      db_.Connect()
          ->Exec("INSERT INTO awc.tenants (id) VALUES ($1)", {kHostileKind})
          .ok());
  db_.Exec(
      "INSERT INTO awc.audit_events (tenant_id, event, subject) VALUES "
      "($1, 'gc.epoch', 'gc_epoch/1')",
      {kHostileKind});
  const std::string tenant = "?tenant=%3Cscript%3Ealert(1)%3C%2Fscript%3E";
  ConsoleProcess console(db_);
  ASSERT_TRUE(console.WaitListening()) << console.process().Stderr();
  for (const std::string& path :
       {std::string("/"), std::string("/jobs"), "/jobs/" + std::to_string(id),
        std::string("/dead"), std::string("/snapshots"),
        "/snapshots/" + std::to_string(snap), std::string("/audit"),
        std::string("/gc"), "/snapshots" + tenant, "/gc" + tenant,
        "/audit" + tenant,
        std::string("/jobs?kind=%3Cscript%3Ealert(1)%3C%2Fscript%3E")}) {
    HttpReply r = console.Get(path);
    ASSERT_EQ(r.status, 200) << path;
    for (const char* tag : {"<script", "<img", "<i>", "<u>", "<b>w"}) {
      EXPECT_EQ(r.body.find(tag), std::string::npos) << path << " " << tag;
    }
  }
  HttpReply job = console.Get("/jobs/" + std::to_string(id));
  EXPECT_NE(job.body.find("&lt;script&gt;alert(3)&lt;/script&gt; &amp; "
                          "&quot;quoted&quot;"),
            std::string::npos);
  EXPECT_NE(job.body.find(kEscapedKind), std::string::npos);
  HttpReply s = console.Get("/snapshots/" + std::to_string(snap));
  EXPECT_NE(s.body.find("entry named &lt;script&gt;alert(4)&lt;/script&gt;"),
            std::string::npos);
  // The hostile tenant id as text: in its audit event's row, and in the
  // filter form of each page that filters by tenant.
  HttpReply of_tenant = console.Get("/audit" + tenant);
  EXPECT_NE(of_tenant.body.find(">" + std::string(kEscapedKind) + "</a>"),
            std::string::npos)
      << of_tenant.body;
  EXPECT_NE(of_tenant.body.find("gc_epoch/1"), std::string::npos);
  for (const char* page : {"/snapshots", "/gc", "/audit"}) {
    EXPECT_NE(console.Get(page + tenant)
                  .body.find("value=\"" + std::string(kEscapedKind) + "\""),
              std::string::npos)
        << page;
  }
  // A hostile Host is refused: the console listens on loopback.
  HttpReply rebinding = HttpExchange(
      console.port(), "GET / HTTP/1.0\r\nHost: evil.example\r\n\r\n");
  EXPECT_EQ(rebinding.status, 403);
}

TEST_F(ConsoleTest, TheDatabaseGoesAwayAndComesBack) {
  db_.Enqueue("test_complete", "{}");
  ConsoleProcess console(db_);
  ASSERT_TRUE(console.WaitListening()) << console.process().Stderr();
  ASSERT_EQ(console.Get("/").status, 200);

  db_.AdminExec("ALTER DATABASE " + db_.name() + " ALLOW_CONNECTIONS false");
  db_.Exec(
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE "
      "datname = current_database() AND application_name LIKE 'awcctl%'");
  for (const char* path :
       {"/", "/jobs", "/dead", "/snapshots", "/gc", "/audit"}) {
    HttpReply r = console.Get(path);
    EXPECT_EQ(r.status, 503) << path;
    ExpectSafeHeaders(r, path);
    EXPECT_NE(r.body.find("Database unavailable"), std::string::npos) << path;
    EXPECT_NE(r.body.find("This page tries again every 5 seconds."),
              std::string::npos);
    EXPECT_NE(r.body.find("<meta http-equiv=\"refresh\" content=\"5\">"),
              std::string::npos);
  }
  HttpReply api = console.Get("/api/overview");
  EXPECT_EQ(api.status, 503);
  EXPECT_TRUE(ParseJson(api.body).ok()) << api.body;
  EXPECT_TRUE(console.process().running());
  EXPECT_NE(console.process().Stderr().find("awcctl: database unavailable: "),
            std::string::npos)
      << console.process().Stderr();

  db_.AdminExec("ALTER DATABASE " + db_.name() + " ALLOW_CONNECTIONS true");
  ASSERT_TRUE(WaitUntil([&] { return console.Get("/").status == 200; }));
  EXPECT_EQ(JobIds(console.Get("/jobs").body).size(), 1u);
  EXPECT_NE(console.process().Stderr().find("awcctl: database reachable again"),
            std::string::npos);
}

// The scheduler's leader and schedules, from a tree whose scheduler leads:
// before it leads, there is no leader to show.
TEST_F(ConsoleTest, ShowsTheSchedulerLeaderAndSchedules) {
  ConsoleProcess console(db_);
  ASSERT_TRUE(console.WaitListening()) << console.process().Stderr();
  HttpReply before = console.Get("/");
  ASSERT_EQ(before.status, 200);
  EXPECT_NE(before.body.find("<h2>Scheduler</h2>"), std::string::npos);
  EXPECT_NE(before.body.find("No scheduler has led yet."), std::string::npos);

  // Built-in schedules paused, so that nothing but this test's jobs run;
  // one schedule of the operator's, of a hostile kind.
  PauseBuiltins(db_);
  AddSchedule(db_, "nightly-report", "@daily", kHostileKind);
  DaemonProcess tree(SchedulerTree(db_, "sched", 30));
  ASSERT_TRUE(WaitUntil([&] { return Leads(tree); })) << tree.Stderr();
  std::string holder = db_.Scalar(
      "SELECT holder FROM awc.leader_leases WHERE name = 'scheduler'");
  std::string token = db_.Scalar(
      "SELECT token FROM awc.leader_leases WHERE name = 'scheduler'");
  ASSERT_FALSE(holder.empty());

  HttpReply led = console.Get("/");
  ASSERT_EQ(led.status, 200);
  const std::string& b = led.body;
  EXPECT_NE(b.find("st-ok\">held</span> <code>" + holder + "</code>, token " +
                   token + ", lease ends <time"),
            std::string::npos)
      << b;
  size_t gc = b.find("<td>gc</td>");
  size_t nightly = b.find(
      "<td>nightly-report</td><td><code>@daily</code></td>"
      "<td>" +
      std::string(kEscapedKind) + "</td>");
  ASSERT_NE(gc, std::string::npos) << b;
  ASSERT_NE(nightly, std::string::npos) << b;
  EXPECT_LT(gc, nightly);  // built-in ones first
  EXPECT_NE(
      b.find("built-in</span></td><td><span class=\"st st-warn\">paused", gc),
      std::string::npos);
  EXPECT_NE(b.find("st-ok\">active</span>", nightly), std::string::npos);
  EXPECT_EQ(b.find("<script"), std::string::npos);

  Result<JsonPtr> doc = ParseJson(console.Get("/api/overview").body);
  ASSERT_TRUE(doc.ok());
  json_t* sched = json_object_get(doc->get(), "scheduler");
  json_t* leader = json_object_get(sched, "leader");
  EXPECT_EQ(Str(leader, "holder"), holder);
  EXPECT_FALSE(json_is_true(json_object_get(leader, "expired")));
  json_t* rows = json_object_get(sched, "schedules");
  EXPECT_EQ(static_cast<int64_t>(json_array_size(rows)),
            db_.Int("SELECT count(*) FROM awc.schedules"));
  bool found = false;
  for (size_t i = 0; i < json_array_size(rows); ++i) {
    json_t* r = json_array_get(rows, i);
    if (Str(r, "name") != "nightly-report") continue;
    found = true;
    EXPECT_EQ(Str(r, "kind"), kHostileKind);
    EXPECT_FALSE(json_is_true(json_object_get(r, "builtin")));
  }
  EXPECT_TRUE(found);
}

}  // namespace
}  // namespace awc::testing
