// What the subcommands of awc-bench-storage (storage_bench_main.cc) share:
// dying with a message, the clocks, the options, the settings, the store
// and the database connection as the daemon opens them, and the filler
// content and entry names of generated trees. Built only with
// -DAWC_BUILD_BENCH=ON; never installed.
#ifndef AWC_BENCH_STORAGE_BENCH_COMMON_H_
#define AWC_BENCH_STORAGE_BENCH_COMMON_H_

#include <ev.h>

#include <cstdint>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "common/status.h"
#include "config/config.h"
#include "db/pg.h"
#include "store/object_store.h"

namespace awc::bench {

// Prints "awc-bench-storage: MSG" on stderr and exits with status 1.
[[noreturn]] void Die(const std::string& msg);

// Dies with "WHAT: message" unless `s` is OK.
void Check(const Status& s, const char* what);

// CLOCK_MONOTONIC, in seconds.
double Now();

// The user and system CPU seconds of this process (getrusage).
struct Cpu {
  double user = 0, sys = 0;
  static Cpu Self();
};

// --name value options after the subcommand.
class Args {
 public:
  Args(int argc, char** argv, int first) {
    for (int i = first; i < argc; ++i) {
      std::string a = argv[i];
      if (a.rfind("--", 0) == 0 && i + 1 < argc) {
        opts_[a.substr(2)] = argv[++i];
      } else {
        positional_.push_back(a);
      }
    }
  }
  std::string Str(const std::string& name, const char* def = nullptr) const {
    auto it = opts_.find(name);
    if (it != opts_.end()) return it->second;
    if (def == nullptr) Die("--" + name + " is required");
    return def;
  }
  double Num(const std::string& name, double def) const {
    auto it = opts_.find(name);
    return it == opts_.end() ? def : strtod(it->second.c_str(), nullptr);
  }
  const std::vector<std::string>& positional() const { return positional_; }

 private:
  std::map<std::string, std::string> opts_;
  std::vector<std::string> positional_;
};

// The settings, from the environment as the daemon reads them
// (config::Config::Load); the log level is set to warn.
awc::config::Settings LoadSettings();

// The store of AWC_CAS_URL, on `loop` (S3 drives its transfers on it),
// made first if it is not there (as `awcctl store init` does): the
// benchmarks write into fresh directories and buckets.
std::unique_ptr<awc::store::ObjectStore> OpenStore(
    const awc::config::Settings& s, struct ev_loop* loop);

// What every subcommand that reads or writes objects starts from: the
// settings, an event loop and the store of AWC_CAS_URL on it (OpenStore).
// The store goes before the loop it runs on.
struct StoreSetup {
  StoreSetup();
  ~StoreSetup();
  StoreSetup(const StoreSetup&) = delete;
  StoreSetup& operator=(const StoreSetup&) = delete;

  awc::config::Settings settings;
  struct ev_loop* loop;
  std::unique_ptr<awc::store::ObjectStore> store;
};

// A connection to DATABASE_URL.
std::unique_ptr<awc::db::PgConn> Connect(const awc::config::Settings& s);

// The next value of the splitmix64 generator whose state is `state`.
uint64_t SplitMix(uint64_t& state);

// Makes `out` `size` bytes of filler that depend on (seed, blob) alone
// (splitmix64).
void Fill(std::string& out, uint64_t size, uint64_t seed, uint64_t blob);

// `prefix` followed by `n` zero-padded to `width` digits: "f000042".
std::string Name(const char* prefix, uint64_t n, int width);

// Runs `sql` and returns the first column of its first row ("" without
// one); dies on an error.
std::string Q(awc::db::PgConn& conn, const std::string& sql,
              const awc::db::Params& params = {});

// The subcommands (storage_bench_<name>.cc), each run by main with the
// options after its name; each returns the exit status.
int Gen(const Args& a);
int Walk(const Args& a);
int Scale(const Args& a);
int HashFiles(const Args& a);
int Gc(const Args& a);
int Migrate(const Args& a);
int ExplainPlan(const Args& a);

}  // namespace awc::bench

#endif  // AWC_BENCH_STORAGE_BENCH_COMMON_H_
