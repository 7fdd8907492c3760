#include "tests/support/harness.h"

#include <dirent.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "common/env.h"
#include "migrate/migrator.h"

extern char** environ;

namespace awc::testing {
namespace {

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream buf;
  buf << in.rdbuf();
  return buf.str();
}

std::string TempPath(const char* tag) {
  static std::atomic<int> counter{0};
  std::string dir = EnvOr("TMPDIR", "/tmp");
  return dir + "/awc-test-" + std::to_string(getpid()) + "-" +
         std::to_string(counter++) + "-" + tag;
}

std::unique_ptr<db::PgConn> MustConnect(const std::string& url,
                                        const std::string& app) {
  auto conn = db::PgConn::Connect(url, app);
  if (!conn.ok()) {
    ADD_FAILURE() << "cannot connect to the test cluster: "
                  << conn.status().message();
    abort();
  }
  return std::move(*conn);
}

}  // namespace

std::string EnvOr(const char* name, const char* fallback) {
  const char* v = getenv(name);
  return v != nullptr && *v != '\0' ? v : fallback;
}

std::string MakeServerDir(const std::string& tag) {
  std::string tmpl = EnvOr("TMPDIR", "/tmp") + "/" + tag + "-XXXXXX";
  if (mkdtemp(tmpl.data()) == nullptr) {
    ADD_FAILURE() << "mkdtemp " << tmpl << ": " << strerror(errno);
    return "";
  }
  return tmpl;
}

bool WaitUntil(const std::function<bool()>& done, double timeout_s) {
  double end = Env::Default()->NowMonotonic() + timeout_s;
  while (!done()) {
    if (Env::Default()->NowMonotonic() > end) return false;
    Env::Default()->SleepFor(0.02);
  }
  return true;
}

std::string ClusterUrl(const std::string& db) {
  if (getenv("PGPORT") == nullptr) {
    fprintf(stderr,
            "The integration tests need the throwaway PostgreSQL cluster that "
            "`make check` starts (pg_virtualenv sets PGHOST, PGPORT, PGUSER, "
            "PGPASSWORD).\n");
    abort();
  }
  return "postgresql://" + EnvOr("PGUSER", "postgres") + ":" +
         EnvOr("PGPASSWORD", "") + "@" + EnvOr("PGHOST", "localhost") + ":" +
         EnvOr("PGPORT", "5432") + "/" + db;
}

int ClusterPort() { return atoi(EnvOr("PGPORT", "5432").c_str()); }

std::string MultiHostUrl(const std::string& db, const std::vector<int>& ports) {
  std::string url = "postgresql://" + EnvOr("PGUSER", "postgres") + ":" +
                    EnvOr("PGPASSWORD", "") + "@";
  for (size_t i = 0; i < ports.size(); ++i) {
    url += (i > 0 ? ",127.0.0.1:" : "127.0.0.1:") + std::to_string(ports[i]);
  }
  return url + "/" + db;
}

TestDatabase::TestDatabase() {
  static std::atomic<int> counter{0};
  name_ = "awc_t_" + std::to_string(getpid()) + "_" + std::to_string(counter++);
  auto admin = MustConnect(ClusterUrl("postgres"), "awc-test-admin");
  auto r = admin->Exec("CREATE DATABASE " + name_);
  if (!r.ok()) ADD_FAILURE() << r.status().message();
  url_ = ClusterUrl(name_);
  conn_ = MustConnect(url_, "awc-test");
}

TestDatabase::~TestDatabase() {
  conn_.reset();
  auto admin = MustConnect(ClusterUrl("postgres"), "awc-test-admin");
  (void)admin->Exec("DROP DATABASE IF EXISTS " + name_ + " WITH (FORCE)");
}

std::unique_ptr<db::PgConn> TestDatabase::Connect(
    const std::string& app) const {
  return MustConnect(url_, app);
}

std::unique_ptr<db::PgConn> TestDatabase::HoldHorizon(const std::string& app,
                                                      std::string* pid) const {
  auto conn = MustConnect(url_, app);
  auto r = conn->Begin();
  if (r.ok()) r = conn->Exec("SELECT txid_current()").status();
  auto backend = conn->Exec("SELECT pg_backend_pid()");
  if (!r.ok() || !backend.ok()) {
    ADD_FAILURE() << "cannot hold the horizon: "
                  << (r.ok() ? backend.status() : r).message();
  } else if (pid != nullptr) {
    *pid = backend->GetString(0, 0);
  }
  return conn;
}

std::string TestDatabase::Scalar(const std::string& sql,
                                 const db::Params& params) {
  auto r = conn_->Exec(sql, params);
  if (!r.ok()) {
    ADD_FAILURE() << sql << ": " << r.status().message();
    return "";
  }
  if (r->rows() == 0) return "";
  return r->IsNull(0, 0) ? "NULL" : r->GetString(0, 0);
}

int64_t TestDatabase::Int(const std::string& sql, const db::Params& params) {
  return strtoll(Scalar(sql, params).c_str(), nullptr, 10);
}

void TestDatabase::Exec(const std::string& sql, const db::Params& params) {
  auto r = conn_->Exec(sql, params);
  if (!r.ok()) ADD_FAILURE() << sql << ": " << r.status().message();
}

void TestDatabase::AdminExec(const std::string& sql) {
  auto admin = MustConnect(ClusterUrl("postgres"), "awc-test-admin");
  auto r = admin->Exec(sql);
  if (!r.ok()) ADD_FAILURE() << sql << ": " << r.status().message();
}

void TestDatabase::Migrate() {
  auto r = migrate::Migrate(*conn_);
  if (!r.ok()) ADD_FAILURE() << "migrate: " << r.status().message();
}

void TestDatabase::SetReadOnlyForNewSessions(bool on) {
  AdminExec("ALTER DATABASE " + name_ +
            (on ? " SET default_transaction_read_only = on"
                : " RESET default_transaction_read_only"));
}

int64_t TestDatabase::Enqueue(const std::string& kind,
                              const std::string& payload, int max_attempts) {
  return Int(
      "INSERT INTO awc.jobs (kind, payload, max_attempts) VALUES ($1, $2, $3) "
      "RETURNING id",
      {kind, payload, std::to_string(max_attempts)});
}

std::string TestDatabase::JobState(int64_t id) {
  return Scalar("SELECT state FROM awc.jobs WHERE id = $1",
                {std::to_string(id)});
}

std::string TestDaemonPath() { return AWC_TESTD_PATH; }
std::string ShippedDaemonPath() { return AWC_DAEMON_PATH; }
std::string AwcctlPath() { return AWCCTL_PATH; }

namespace {

// This process's environment minus DATABASE_URL, AWC_* and NOTIFY_SOCKET,
// plus `extra`.
std::vector<std::string> ChildEnv(
    const std::vector<std::pair<std::string, std::string>>& extra) {
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    std::string_view kv(*e);
    if (kv.starts_with("AWC_") || kv.starts_with("DATABASE_URL=") ||
        kv.starts_with("NOTIFY_SOCKET=") || kv.starts_with("JOURNAL_STREAM=")) {
      continue;
    }
    env.emplace_back(kv);
  }
  for (const auto& [k, v] : extra) env.push_back(k + "=" + v);
  return env;
}

}  // namespace

DaemonProcess::DaemonProcess(Options options)
    : out_path_(TempPath("stdout")), err_path_(TempPath("stderr")) {
  if (options.journal_stream) {
    // Made here so that its inode is known; the child truncates, not
    // replaces, it.
    int fd = open(err_path_.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
    struct stat st;
    if (fd >= 0 && fstat(fd, &st) == 0) {
      options.env.push_back({"JOURNAL_STREAM", std::to_string(st.st_dev) + ":" +
                                                   std::to_string(st.st_ino)});
    }
    if (fd >= 0) close(fd);
  }
  std::vector<std::string> env = ChildEnv(options.env);
  std::vector<std::string> args = {options.binary};
  args.insert(args.end(), options.args.begin(), options.args.end());

  fflush(nullptr);
  pid_ = fork();
  if (pid_ == 0) {
    setpgid(0, 0);
    int out = open(out_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    int err = open(err_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    dup2(out, 1);
    dup2(err, 2);
    int devnull = open("/dev/null", O_RDONLY);
    dup2(devnull, 0);
    std::vector<char*> argv, envp;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    for (auto& e : env) envp.push_back(e.data());
    envp.push_back(nullptr);
    execve(argv[0], argv.data(), envp.data());
    _exit(127);
  }
  setpgid(pid_, pid_);
}

DaemonProcess::~DaemonProcess() {
  if (pid_ > 0) {
    kill(-pid_, SIGKILL);
    if (!status_) {
      int st;
      waitpid(pid_, &st, 0);
    }
    // Grandchildren of a killed group are reaped by init; wait until gone.
    WaitUntil([&] { return Children().empty(); }, 10);
  }
  unlink(out_path_.c_str());
  unlink(err_path_.c_str());
}

void DaemonProcess::Signal(int sig) { kill(pid_, sig); }

bool DaemonProcess::running() {
  if (status_) return false;
  int st;
  pid_t r = waitpid(pid_, &st, WNOHANG);
  if (r == pid_) {
    status_ = st;
    return false;
  }
  return true;
}

std::optional<int> DaemonProcess::WaitExit(double timeout_s) {
  WaitUntil([&] { return !running(); }, timeout_s);
  return status_;
}

std::string DaemonProcess::Stdout() const { return ReadAll(out_path_); }
std::string DaemonProcess::Stderr() const { return ReadAll(err_path_); }

std::vector<JsonPtr> DaemonProcess::Events() const {
  std::vector<JsonPtr> out;
  std::istringstream in(Stderr());
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] != '{') continue;
    auto j = ParseJson(line);
    if (j.ok() && json_is_object(j->get())) out.push_back(std::move(*j));
  }
  return out;
}

std::vector<JsonPtr> DaemonProcess::EventsWith(const std::string& msg,
                                               const std::string& id) const {
  std::vector<JsonPtr> out;
  for (auto& e : Events()) {
    if (Str(e.get(), "msg") == msg &&
        (id.empty() || Str(e.get(), "id") == id)) {
      out.push_back(std::move(e));
    }
  }
  return out;
}

bool DaemonProcess::WaitForEvent(const std::string& msg, double timeout_s,
                                 size_t count) {
  return WaitUntil([&] { return EventsWith(msg).size() >= count; }, timeout_s);
}

std::vector<pid_t> DaemonProcess::Children() const {
  std::vector<pid_t> out;
  DIR* d = opendir("/proc");
  if (d == nullptr) return out;
  while (dirent* e = readdir(d)) {
    pid_t p = static_cast<pid_t>(atoi(e->d_name));
    if (p > 0 && ParentOf(p) == pid_) out.push_back(p);
  }
  closedir(d);
  return out;
}

pid_t DaemonProcess::ChildRunning(int64_t job_id, double timeout_s) const {
  std::string held = "job " + std::to_string(job_id) + " ";
  pid_t found = 0;
  WaitUntil(
      [&] {
        for (pid_t p : Children()) {
          if (ProcessTitle(p).find(held) != std::string::npos) found = p;
        }
        return found != 0;
      },
      timeout_s);
  return found;
}

DaemonProcess::Options FleetOptions(
    const TestDatabase& db, int concurrency,
    std::vector<std::pair<std::string, std::string>> extra) {
  DaemonProcess::Options o;
  o.env = {{"DATABASE_URL", db.url()},
           {"AWC_CAS_URL", "memory://"},
           {"AWC_WORKER_ID", "t"},
           {"AWC_WORKER_CONCURRENCY", std::to_string(concurrency)},
           {"AWC_WORKER_POLL_INTERVAL_MS", "200"},
           {"AWC_SCHEDULER", "off"}};
  for (auto& kv : extra) {
    auto it = std::find_if(o.env.begin(), o.env.end(),
                           [&](const auto& e) { return e.first == kv.first; });
    if (it != o.env.end()) {
      it->second = kv.second;
    } else {
      o.env.push_back(kv);
    }
  }
  return o;
}

TempDir::TempDir() {
  std::string tmpl = EnvOr("TMPDIR", "/tmp") + "/awc-test-XXXXXX";
  char* made = mkdtemp(tmpl.data());
  if (made == nullptr) {
    ADD_FAILURE() << "mkdtemp failed";
    abort();
  }
  path_ = made;
}

TempDir::~TempDir() {
  std::string cmd = "rm -rf '" + path_ + "'";
  if (system(cmd.c_str()) != 0) ADD_FAILURE() << "cannot remove " << path_;
}

void TempDir::Write(const std::string& relative,
                    const std::string& content) const {
  std::string path = path_ + "/" + relative;
  for (size_t slash = path.find('/', path_.size() + 1);
       slash != std::string::npos; slash = path.find('/', slash + 1)) {
    mkdir(path.substr(0, slash).c_str(), 0755);
  }
  std::ofstream(path, std::ios::binary) << content;
}

CommandResult RunProcess(const std::string& binary,
                         std::vector<std::string> args,
                         std::vector<std::pair<std::string, std::string>> env) {
  DaemonProcess::Options o;
  o.binary = binary;
  o.args = std::move(args);
  o.env = std::move(env);
  DaemonProcess p(o);
  std::optional<int> st = p.WaitExit(120);
  CommandResult r;
  r.out = p.Stdout();
  r.err = p.Stderr();
  if (st && WIFEXITED(*st)) r.code = WEXITSTATUS(*st);
  return r;
}

CommandResult RunOnTerminal(
    const std::string& binary, std::vector<std::string> args,
    std::vector<std::pair<std::string, std::string>> env,
    const std::string& prompt, const std::string& typed) {
  std::vector<std::string> envs = ChildEnv(env);
  args.insert(args.begin(), binary);
  fflush(nullptr);
  int master = -1;
  pid_t pid = forkpty(&master, nullptr, nullptr, nullptr);
  if (pid == 0) {
    std::vector<char*> argv, envp;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    for (auto& e : envs) envp.push_back(e.data());
    envp.push_back(nullptr);
    execve(argv[0], argv.data(), envp.data());
    _exit(127);
  }
  CommandResult r;
  if (pid < 0) return r;
  bool typed_yet = prompt.empty();
  double end = Env::Default()->NowMonotonic() + 60;
  for (;;) {
    pollfd p = {master, POLLIN, 0};
    int left_ms =
        static_cast<int>((end - Env::Default()->NowMonotonic()) * 1e3);
    if (left_ms <= 0 || poll(&p, 1, left_ms) <= 0) break;
    char buf[4096];
    ssize_t n = read(master, buf, sizeof buf);
    if (n <= 0) break;  // EIO once the child and its terminal are gone
    r.out.append(buf, static_cast<size_t>(n));
    if (!typed_yet && r.out.find(prompt) != std::string::npos) {
      std::string line = typed + "\n";
      if (write(master, line.data(), line.size()) < 0) break;
      typed_yet = true;
    }
  }
  close(master);
  int st = 0;
  if (waitpid(pid, &st, 0) == pid && WIFEXITED(st)) r.code = WEXITSTATUS(st);
  return r;
}

std::string PsqlPath() { return "/usr/bin/psql"; }

double JobsTotal(const std::string& body, const std::string& kind,
                 const std::string& outcome) {
  return MetricValue(body, "awc_background_jobs_total{kind=\"" + kind +
                               "\",outcome=\"" + outcome + "\"}");
}

bool PlanUsesIndex(const std::string& plan_json, const std::string& index) {
  return plan_json.find("\"Index Name\": \"" + index + "\"") !=
         std::string::npos;
}

namespace {

void CollectPlanNodes(const json_t* plan, std::vector<std::string>* out) {
  std::string type = Str(plan, "Node Type");
  std::string rel = Str(plan, "Relation Name");
  std::string index = Str(plan, "Index Name");
  out->push_back(type + (rel.empty() ? "" : " on " + rel) +
                 (index.empty() ? "" : " using " + index));
  const json_t* children = json_object_get(plan, "Plans");
  for (size_t i = 0; i < json_array_size(children); ++i) {
    CollectPlanNodes(json_array_get(children, i), out);
  }
}

}  // namespace

std::vector<std::string> PlanNodes(const std::string& plan_json) {
  std::vector<std::string> nodes;
  Result<JsonPtr> doc = ParseJson(plan_json);
  if (!doc.ok()) return nodes;
  CollectPlanNodes(json_object_get(json_array_get(doc->get(), 0), "Plan"),
                   &nodes);
  return nodes;
}

double MetricValue(const std::string& body, const std::string& series) {
  std::istringstream in(body);
  std::string line;
  while (std::getline(in, line)) {
    if (line.starts_with(series + " ")) {
      return std::stod(line.substr(series.size() + 1));
    }
  }
  return -1;
}

std::string Str(const json_t* obj, const char* key) {
  const json_t* v = json_object_get(obj, key);
  return json_is_string(v) ? json_string_value(v) : "";
}

int64_t Int(const json_t* obj, const char* key) {
  const json_t* v = json_object_get(obj, key);
  return json_is_integer(v) ? json_integer_value(v) : -1;
}

double Num(const json_t* obj, const char* key) {
  const json_t* v = json_object_get(obj, key);
  return json_is_number(v) ? json_number_value(v) : -1;
}

std::string ProcessTitle(pid_t pid) {
  std::string raw = ReadAll("/proc/" + std::to_string(pid) + "/cmdline");
  while (!raw.empty() && raw.back() == '\0') raw.pop_back();
  for (char& c : raw) {
    if (c == '\0') c = ' ';
  }
  return raw;
}

pid_t ParentOf(pid_t pid) {
  std::string stat = ReadAll("/proc/" + std::to_string(pid) + "/stat");
  size_t close = stat.rfind(')');
  if (close == std::string::npos || close + 4 > stat.size()) return -1;
  char state = stat[close + 2];
  if (state == 'Z' || state == 'X') return -1;
  return static_cast<pid_t>(atoi(stat.c_str() + close + 4));
}

bool ProcessAlive(pid_t pid) { return ParentOf(pid) != -1; }

bool InitStore(const std::string& url,
               std::vector<std::pair<std::string, std::string>> env) {
  CommandResult r = RunAwcctl({"store", "init", url}, std::move(env));
  EXPECT_EQ(r.code, 0) << "awcctl store init " << url << ": " << r.err;
  return r.code == 0;
}

}  // namespace awc::testing
