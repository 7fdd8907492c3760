// The shared part of awc-bench-storage: see storage_bench_common.h.
#include "storage_bench_common.h"

#include <sys/resource.h>
#include <time.h>

#include <cinttypes>
#include <cstdio>
#include <cstring>

#include "obs/log.h"
#include "options/module_options.h"
#include "store/open_store.h"
#include "store/store_url.h"

namespace awc::bench {

[[noreturn]] void Die(const std::string& msg) {
  fprintf(stderr, "awc-bench-storage: %s\n", msg.c_str());
  exit(1);
}

void Check(const Status& s, const char* what) {
  if (!s.ok()) Die(std::string(what) + ": " + s.message());
}

double Now() {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) +
         static_cast<double>(ts.tv_nsec) * 1e-9;
}

Cpu Cpu::Self() {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return {static_cast<double>(ru.ru_utime.tv_sec) + ru.ru_utime.tv_usec * 1e-6,
          static_cast<double>(ru.ru_stime.tv_sec) + ru.ru_stime.tv_usec * 1e-6};
}

awc::config::Settings LoadSettings() {
  auto cfg = awc::config::Config::Load("", awc::config::ProcessEnv());
  if (!cfg.ok()) Die(cfg.status().message());
  awc::obs::SetLogLevel(awc::obs::LogLevel::kWarn);
  return cfg->settings();
}

std::unique_ptr<awc::store::ObjectStore> OpenStore(
    const awc::config::Settings& s, struct ev_loop* loop) {
  if (s.cas_url.empty()) Die("AWC_CAS_URL is not set");
  auto url = awc::options::StoreUrlFrom(s);
  if (!url.ok()) Die(url.status().message());
  auto s3 = awc::options::S3OptionsFrom(s);
  auto made = awc::store::InitializeStore(*url, s3, loop);
  if (!made.ok()) Die(made.status().message());
  auto store = awc::store::OpenInitializedStore(*url, s3, loop);
  if (!store.ok()) Die(store.status().message());
  return std::move(*store);
}

StoreSetup::StoreSetup()
    : settings(LoadSettings()),
      loop(ev_loop_new(EVFLAG_AUTO)),
      store(OpenStore(settings, loop)) {}

StoreSetup::~StoreSetup() {
  store.reset();
  ev_loop_destroy(loop);
}

std::unique_ptr<awc::db::PgConn> Connect(const awc::config::Settings& s) {
  if (s.database_url.empty()) Die("DATABASE_URL is not set");
  auto conn = awc::db::PgConn::Connect(s.database_url, "awc-bench-storage");
  if (!conn.ok()) Die(conn.status().message());
  return std::move(*conn);
}

uint64_t SplitMix(uint64_t& state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

void Fill(std::string& out, uint64_t size, uint64_t seed, uint64_t blob) {
  out.resize(size);
  uint64_t state = seed * 0x100000001b3ULL ^ (blob + 1) * 0x9e3779b97f4a7c15ULL;
  size_t i = 0;
  for (; i + 8 <= size; i += 8) {
    uint64_t v = SplitMix(state);
    memcpy(&out[i], &v, 8);
  }
  if (i < size) {
    uint64_t v = SplitMix(state);
    memcpy(&out[i], &v, size - i);
  }
}

std::string Name(const char* prefix, uint64_t n, int width) {
  char buf[32];
  snprintf(buf, sizeof buf, "%s%0*" PRIu64, prefix, width, n);
  return buf;
}

std::string Q(awc::db::PgConn& conn, const std::string& sql,
              const awc::db::Params& params) {
  auto r = conn.Exec(sql, params);
  if (!r.ok()) Die(sql + ": " + r.status().message());
  return r->rows() > 0 ? r->GetString(0, 0) : "";
}

}  // namespace awc::bench
