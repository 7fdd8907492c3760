// Events on stderr and the master's /metrics, /healthz, /readyz, checked on
// the real daemon after real jobs.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <regex>
#include <set>

#include "tests/support/harness.h"

namespace awc::testing {
namespace {

constexpr const char* kPayloadMarker = "PAYLOAD-MARKER-7f3a";

class ObservabilityTest : public ::testing::Test {
 protected:
  void Start(int concurrency) {
    port_ = FreePort();
    daemon_ = std::make_unique<DaemonProcess>(FleetOptions(
        db_, concurrency,
        {{"AWC_METRICS_LISTEN", "127.0.0.1:" + std::to_string(port_)}}));
    ASSERT_TRUE(daemon_->WaitForEvent("supervisor running"))
        << daemon_->Stderr();
  }
  std::pair<int, std::string> Get(const std::string& path) {
    return HttpGet(port_, path);
  }

  TestDatabase db_;
  int port_ = 0;
  std::unique_ptr<DaemonProcess> daemon_;
};

TEST_F(ObservabilityTest, JobEventsCarryTheContractFieldsAndNothingElse) {
  Start(2);
  int64_t ok = db_.Enqueue("test_complete", "{}");
  int64_t retry = db_.Enqueue("test_retry", "{}", 5);
  int64_t fail = db_.Enqueue("test_fail", "{}");
  int64_t unknown = db_.Enqueue(
      "no_such_kind", std::string(R"({"marker": ")") + kPayloadMarker + "\"}");
  ASSERT_TRUE(daemon_->WaitForEvent("job completed"));
  ASSERT_TRUE(daemon_->WaitForEvent("job retried after transient failure"));
  ASSERT_TRUE(daemon_->WaitForEvent("job dead-lettered", 30, 2));

  struct Expect {
    int64_t id;
    const char* level;
    const char* msg;
    const char* kind;
    const char* outcome;
    const char* state;
    const char* dead_reason;  // nullptr: not dead-lettered
  };
  for (const Expect& x : {
           Expect{ok, "info", "job completed", "test_complete", "completed",
                  "COMPLETED", nullptr},
           Expect{retry, "warn", "job retried after transient failure",
                  "test_retry", "retried", "PENDING", nullptr},
           Expect{fail, "error", "job dead-lettered", "test_fail", "failed",
                  "FAILED", "handler_failed"},
           Expect{unknown, "error", "job dead-lettered", "no_such_kind",
                  "failed", "FAILED", "unknown_kind"},
       }) {
    std::string id = "job_" + std::to_string(x.id);
    auto events = daemon_->EventsWith(x.msg, id);
    ASSERT_EQ(events.size(), 1u) << id;
    const json_t* e = events[0].get();
    EXPECT_EQ(Str(e, "level"), x.level);
    EXPECT_EQ(Str(e, "kind"), x.kind);
    EXPECT_EQ(Str(e, "outcome"), x.outcome);
    EXPECT_EQ(Str(e, "state"), x.state);
    EXPECT_EQ(Int(e, "attempts"), 1);
    EXPECT_TRUE(std::regex_match(
        Str(e, "ts"), std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z)")))
        << Str(e, "ts");
    EXPECT_TRUE(std::regex_match(Str(e, "worker"), std::regex("t-[12]")))
        << Str(e, "worker");
    // Only contract fields plus the duration, and why a dead letter died.
    std::set<std::string> keys;
    const char* key;
    json_t* value;
    json_object_foreach(const_cast<json_t*>(e), key, value) keys.insert(key);
    std::set<std::string> want = {"ts",       "level",     "id",      "msg",
                                  "worker",   "kind",      "outcome", "state",
                                  "attempts", "duration_s"};
    if (x.dead_reason != nullptr) {
      want.insert("dead_reason");
      EXPECT_EQ(Str(e, "dead_reason"), x.dead_reason) << id;
    }
    EXPECT_EQ(keys, want);
  }
  // Never the payload or the error text, anywhere on stderr.
  std::string err = daemon_->Stderr();
  EXPECT_EQ(err.find(kPayloadMarker), std::string::npos);
  EXPECT_EQ(err.find("TEST-ERROR-TEXT"), std::string::npos);
  // Every line is one JSON object.
  std::istringstream in(err);
  std::string line;
  while (std::getline(in, line)) EXPECT_EQ(line.front(), '{') << line;
}

TEST_F(ObservabilityTest, MetricsCountJobsByKindAndOutcome) {
  Start(2);
  for (int i = 0; i < 3; ++i) db_.Enqueue("test_complete", "{}");
  db_.Enqueue("test_fail", "{}");
  db_.Enqueue("test_retry", "{}");
  db_.Enqueue("unknown_kind", "{}");
  ASSERT_TRUE(daemon_->WaitForEvent("job completed", 30, 3));
  ASSERT_TRUE(daemon_->WaitForEvent("job dead-lettered", 30, 2));
  ASSERT_TRUE(daemon_->WaitForEvent("job retried after transient failure"));

  auto [status, body] = Get("/metrics");
  ASSERT_EQ(status, 200);
  EXPECT_EQ(JobsTotal(body, "test_complete", "completed"), 3);
  EXPECT_EQ(JobsTotal(body, "test_fail", "failed"), 1);
  EXPECT_EQ(JobsTotal(body, "test_retry", "retried"), 1);
  EXPECT_EQ(JobsTotal(body, "unknown", "failed"), 1);
  EXPECT_EQ(JobsTotal(body, "unknown_kind", "failed"), -1);
  EXPECT_GE(
      MetricValue(body,
                  R"(awc_background_job_lag_seconds{kind="test_complete"})"),
      0);
  EXPECT_EQ(MetricValue(body, R"(awc_api_errors_total{component="worker"})"),
            0);
  EXPECT_EQ(MetricValue(body, "awc_worker_other_database_errors_total"), 0);
  EXPECT_EQ(
      MetricValue(
          body,
          R"(awc_background_job_duration_seconds_count{kind="test_complete"})"),
      3);
  EXPECT_EQ(MetricValue(body, "awc_workers_running"), 2);
  EXPECT_NE(body.find("# TYPE awc_background_jobs_total counter"),
            std::string::npos);
  EXPECT_NE(body.find("# TYPE awc_background_job_lag_seconds gauge"),
            std::string::npos);
  // The database password never shows.
  std::string password = getenv("PGPASSWORD") ? getenv("PGPASSWORD") : "";
  EXPECT_EQ(body.find(password), std::string::npos);
}

TEST_F(ObservabilityTest, JunkKindsCannotCrowdOutTheRealOnes) {
  // Kind labels are a closed set: registered kinds, and "unknown" for any
  // other. 200 invented kinds do not use up the label budget.
  Start(2);
  db_.Exec(
      "INSERT INTO awc.jobs (kind) SELECT 'junk_' || n FROM "
      "generate_series(1, 200) n");
  ASSERT_TRUE(daemon_->WaitForEvent("job dead-lettered", 60, 200));
  int64_t gc = db_.Enqueue("gc_sweep", R"({"tenant_id": "nobody"})");
  int64_t done = db_.Enqueue("test_complete", "{}");
  ASSERT_TRUE(WaitUntil([&] {
    return db_.JobState(gc) == "FAILED" && db_.JobState(done) == "COMPLETED";
  }));
  ASSERT_TRUE(daemon_->WaitForEvent("job completed"));
  auto [status, body] = Get("/metrics");
  ASSERT_EQ(status, 200);
  EXPECT_EQ(JobsTotal(body, "unknown", "failed"), 200);
  EXPECT_EQ(JobsTotal(body, "gc_sweep", "failed"), 1);
  EXPECT_EQ(JobsTotal(body, "test_complete", "completed"), 1);
  EXPECT_EQ(body.find("cardinality_overflow"), std::string::npos) << body;
  EXPECT_EQ(body.find("junk_"), std::string::npos);
}

TEST_F(ObservabilityTest, CountsSurviveAWorkerCrash) {
  Start(1);
  int64_t a = db_.Enqueue("test_complete", "{}");
  ASSERT_TRUE(WaitUntil([&] { return db_.JobState(a) == "COMPLETED"; }));
  ASSERT_TRUE(daemon_->WaitForEvent("job completed"));
  db_.Enqueue("test_crash", "{}", 1);
  ASSERT_TRUE(daemon_->WaitForEvent("worker exited"));
  ASSERT_TRUE(daemon_->WaitForEvent("worker started", 30, 2));
  int64_t b = db_.Enqueue("test_complete", "{}");
  ASSERT_TRUE(WaitUntil([&] { return db_.JobState(b) == "COMPLETED"; }));
  ASSERT_TRUE(daemon_->WaitForEvent("job completed", 30, 2));
  auto [status, body] = Get("/metrics");
  ASSERT_EQ(status, 200);
  EXPECT_EQ(JobsTotal(body, "test_complete", "completed"), 2);
  EXPECT_EQ(MetricValue(body, "awc_worker_restarts_total"), 1);
}

TEST_F(ObservabilityTest, HealthAndReadiness) {
  Start(2);
  EXPECT_EQ(Get("/healthz").first, 200);
  ASSERT_TRUE(WaitUntil([&] { return Get("/readyz").first == 200; }));
  EXPECT_EQ(Get("/nope").first, 404);

  // The database refuses the workers: not ready, still alive.
  db_.AdminExec("ALTER DATABASE " + db_.name() + " ALLOW_CONNECTIONS false");
  db_.Exec(
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE "
      "datname = current_database() AND application_name LIKE 't-%'");
  ASSERT_TRUE(WaitUntil([&] { return Get("/readyz").first == 503; }));
  auto [code, why] = Get("/readyz");
  EXPECT_EQ(why, "no worker connected to the database\n");
  EXPECT_EQ(Get("/healthz").first, 200);
  ASSERT_TRUE(daemon_->WaitForEvent("database unavailable"));

  db_.AdminExec("ALTER DATABASE " + db_.name() + " ALLOW_CONNECTIONS true");
  ASSERT_TRUE(WaitUntil([&] { return Get("/readyz").first == 200; }));
  EXPECT_TRUE(daemon_->WaitForEvent("database reconnected"));
  auto [mstatus, metrics] = Get("/metrics");
  EXPECT_GE(MetricValue(metrics, R"(awc_api_errors_total{component="worker"})"),
            0);
  int64_t id = db_.Enqueue("test_complete", "{}");
  EXPECT_TRUE(WaitUntil([&] { return db_.JobState(id) == "COMPLETED"; }));
}

TEST_F(ObservabilityTest, NotReadyWhileNoWorkerRuns) {
  db_.Migrate();
  // Every claim kills its worker; the slot's restart backoff grows, and in
  // between no worker runs at all.
  for (int i = 0; i < 8; ++i) db_.Enqueue("test_crash", "{}", 1);
  Start(1);
  std::string body;
  ASSERT_TRUE(WaitUntil([&] {
    auto [code, text] = Get("/readyz");
    body = text;
    return code == 503 && text.find("no worker running") != std::string::npos;
  })) << body;
  EXPECT_EQ(Get("/healthz").first, 200);
}

TEST_F(ObservabilityTest, NotReadyWhileDraining) {
  Start(1);
  ASSERT_TRUE(WaitUntil([&] { return Get("/readyz").first == 200; }));
  int64_t id = db_.Enqueue("test_sleep", R"({"ms": 2000})");
  ASSERT_TRUE(WaitUntil([&] { return db_.JobState(id) == "RUNNING"; }));
  daemon_->Signal(SIGTERM);
  ASSERT_TRUE(
      daemon_->WaitForEvent("graceful shutdown: workers finish their jobs"));
  auto [code, body] = Get("/readyz");
  if (daemon_->running()) {
    EXPECT_EQ(code, 503);
    EXPECT_NE(body.find("shutting down"), std::string::npos);
  }
  daemon_->WaitExit();
  EXPECT_EQ(db_.JobState(id), "COMPLETED");
}

TEST_F(ObservabilityTest, ApiErrorsCountDatabaseFailuresDuringClaim) {
  Start(1);
  ASSERT_TRUE(WaitUntil([&] { return Get("/readyz").first == 200; }));
  // Kill the worker's session under it: its next claim fails.
  db_.Exec(
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE "
      "datname = current_database() AND application_name = 't-1'");
  ASSERT_TRUE(daemon_->WaitForEvent("database connection lost"));
  ASSERT_TRUE(WaitUntil([&] {
    return MetricValue(Get("/metrics").second,
                       R"(awc_api_errors_total{component="worker"})") >= 1;
  }));
  int64_t id = db_.Enqueue("test_complete", "{}");
  EXPECT_TRUE(WaitUntil([&] { return db_.JobState(id) == "COMPLETED"; }));
}

TEST(ObservabilityNoSecretsTest, TitlesEventsAndMetricsCarryNoSecret) {
  TestDatabase db;
  int port = FreePort();
  std::string password = getenv("PGPASSWORD") ? getenv("PGPASSWORD") : "";
  ASSERT_GE(password.size(), 4u);
  auto o =
      FleetOptions(db, 2,
                   {{"AWC_METRICS_LISTEN", "127.0.0.1:" + std::to_string(port)},
                    {"AWC_S3_SECRET_ACCESS_KEY", "S3-SECRET-KEY-abc123"},
                    {"AWC_LOG_LEVEL", "debug"}});
  DaemonProcess d(o);
  ASSERT_TRUE(d.WaitForEvent("supervisor running"));
  db.Enqueue("test_complete", "{}");
  db.Enqueue("test_fail", "{}");
  ASSERT_TRUE(d.WaitForEvent("job dead-lettered"));
  ASSERT_TRUE(WaitUntil([&] { return d.Children().size() == 2; }));
  std::vector<std::string> outputs = {d.Stderr(), d.Stdout(),
                                      HttpGet(port, "/metrics").second,
                                      ProcessTitle(d.pid())};
  for (pid_t c : d.Children()) outputs.push_back(ProcessTitle(c));
  for (const std::string& out : outputs) {
    EXPECT_EQ(out.find(password), std::string::npos) << out;
    EXPECT_EQ(out.find("S3-SECRET-KEY-abc123"), std::string::npos) << out;
  }
}

TEST_F(ObservabilityTest, ListenerSurvivesABurstOfHalfOpenConnections) {
  // Clients send the head of a request and never finish it, as many as
  // the listener has slots, then all go away at once: the listener must
  // serve afterwards.
  Start(1);
  sockaddr_in addr = {};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port_));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  const std::string head = "GET /metrics HTTP/1.1\r\nHost: x\r\n";
  std::vector<int> fds;
  for (int i = 0; i < 64; ++i) {
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    ASSERT_GE(fd, 0);
    connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
    fds.push_back(fd);
  }
  std::vector<bool> sent(fds.size(), false);
  size_t done = 0;
  WaitUntil([&] {
    for (size_t i = 0; i < fds.size(); ++i) {
      if (sent[i]) continue;
      if (send(fds[i], head.data(), head.size(), MSG_NOSIGNAL) ==
          static_cast<ssize_t>(head.size())) {
        sent[i] = true;
        ++done;
      }
    }
    return done == fds.size();
  });
  usleep(500 * 1000);  // the master reads what it has accepted
  // The master is stopped while the clients leave, so that it sees them
  // all go in one turn of its loop.
  daemon_->Signal(SIGSTOP);
  for (int fd : fds) close(fd);
  usleep(100 * 1000);
  daemon_->Signal(SIGCONT);
  EXPECT_TRUE(WaitUntil([&] { return Get("/healthz").first == 200; }, 60))
      << "the listener no longer answers";
  EXPECT_EQ(Get("/metrics").first, 200);
}

}  // namespace
}  // namespace awc::testing
