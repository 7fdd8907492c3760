// awc-bench-storage: the in-process half of the storage benchmarks
// (bench/storage_bench.py, make bench-storage; see bench/README.md). Built
// only with -DAWC_BUILD_BENCH=ON; never installed.
//
// Settings come from the environment exactly as the daemon reads them
// (config::Config::Load: AWC_CAS_URL, AWC_S3_*, DATABASE_URL, AWC_GC_*,
// AWC_MANIFEST_MAX_BYTES, ...). Every subcommand prints one JSON object
// per line on stdout; errors go to stderr with exit status 1.
//
//   gen --tenant T --total-mib N [--large-mib 32] [--large-share 0.5]
//       [--fanout 8] [--seed S]
//       Writes a snapshot tree into the store of AWC_CAS_URL with the
//       store's own Put: about large-share of N MiB as blobs of large-mib
//       MiB at the root, the rest as blobs of 4-64 KiB spread over
//       fanout x fanout leaf directories (root -> dNN -> sNN -> files),
//       every manifest made with cas::SerializeManifest. Content is
//       deterministic (splitmix64 of seed and blob number) and unique, so
//       the closure holds every object once. Prints the root digest and
//       the totals.
//
//   walk --tenant T --root DIGEST
//       One cas::WalkClosure of the root, with the limits of the settings
//       and a no-op checkpoint (the handlers renew their lease there).
//       Prints the wall and CPU seconds of the walk alone (store opened
//       before the clock starts), objects, bytes, reads; for s3:// also the
//       store's counters (most transfers in flight, connections opened).
//
//   scale --tenant T --objects N [--fanout 1000]
//       The walk at scale: a tree of N objects at most, tiny blobs (about
//       20 bytes each) under manifests of `fanout` entries (root -> mids ->
//       leaves -> blobs). Over file:// it is written once as plain files (no
//       fsync) and reused by later runs (.bench-scale-N-F in the store root
//       holds its root digest); over memory:// it is made in this process with
//       Put. Then the peak RSS is reset (/proc/self/clear_refs), the idle
//       RSS read and one cas::WalkClosure run. Prints its wall and CPU
//       seconds, objects, and the RSS before it (VmRSS) and its peak
//       (VmHWM), in KiB.
//
//   hash-files DIR
//       Reads every regular file under DIR in 64 KiB chunks and hashes it
//       with digest::Sha256 (OpenSSL EVP), as the walk does, without the
//       store, the closure or the manifests: the cost floor of the walk.
//
//   gc --tenant T
//       GC cost on a prepared database (storage_bench.py fills it): a
//       warm-up dry run, a timed dry run (plan only), then the dry run's
//       candidates are written to the store (AWC_CAS_URL; content is
//       filler of the recorded size: GC never reads objects) and one full
//       epoch runs with gc::RunSweep, its phases timed through SweepHooks
//       and the checkpoint. Checks that the full epoch deleted exactly the
//       dry run's candidates, from the store and from awc.objects.
//
//   migrate
//       Applies the migrations to DATABASE_URL (the template databases).
//
//   explain-plan --tenant T
//       EXPLAIN (ANALYZE, BUFFERS) of gc::sql::kPlan, run as the sweep runs
//       it (parameters as text, custom plan) for a new epoch, inside a
//       transaction that is rolled back. Prints the plan as text (not JSON).
#include <ev.h>
#include <malloc.h>
#include <sys/resource.h>
#include <time.h>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "cas/closure.h"
#include "cas/manifest.h"
#include "common/status.h"
#include "config/config.h"
#include "db/pg.h"
#include "digest/ids.h"
#include "digest/sha256.h"
#include "gc/gc_sql.h"
#include "gc/sweep.h"
#include "migrate/migrator.h"
#include "obs/log.h"
#include "options/module_options.h"
#include "store/object_store.h"
#include "store/open_store.h"
#include "store/store_url.h"
#if AWC_WITH_S3
#include "store/s3/s3_store.h"
#endif

namespace {

using awc::Result;
using awc::Status;

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

struct Cpu {
  double user = 0, sys = 0;
  static Cpu Self() {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return {
        static_cast<double>(ru.ru_utime.tv_sec) + ru.ru_utime.tv_usec * 1e-6,
        static_cast<double>(ru.ru_stime.tv_sec) + ru.ru_stime.tv_usec * 1e-6};
  }
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

awc::config::Settings LoadSettings() {
  auto cfg = awc::config::Config::Load("", awc::config::ProcessEnv());
  if (!cfg.ok()) Die(cfg.status().message());
  awc::obs::SetLogLevel(awc::obs::LogLevel::kWarn);
  return cfg->settings();
}

// The store of AWC_CAS_URL, on `loop` (S3 drives its transfers on it),
// made first if it is not there (as `awcctl store init` does): the
// benchmarks write into fresh directories and buckets.
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

std::unique_ptr<awc::db::PgConn> Connect(const awc::config::Settings& s) {
  if (s.database_url.empty()) Die("DATABASE_URL is not set");
  auto conn = awc::db::PgConn::Connect(s.database_url, "awc-bench-storage");
  if (!conn.ok()) Die(conn.status().message());
  return std::move(*conn);
}

// ------------------------------------------------------------------- gen

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

class TreeWriter {
 public:
  TreeWriter(awc::store::ObjectStore& store, std::string tenant)
      : store_(store), tenant_(std::move(tenant)) {}

  awc::cas::ManifestEntry Blob(const std::string& name,
                               const std::string& data) {
    return Put(name, data, awc::cas::ManifestEntry::Kind::kBlob);
  }
  awc::cas::ManifestEntry Manifest(const std::string& name,
                                   std::vector<awc::cas::ManifestEntry> es) {
    std::sort(es.begin(), es.end(),
              [](const auto& a, const auto& b) { return a.name < b.name; });
    awc::cas::Manifest m;
    m.entries = std::move(es);
    ++manifests_;
    return Put(name, awc::cas::SerializeManifest(m),
               awc::cas::ManifestEntry::Kind::kManifest);
  }

  uint64_t objects() const { return objects_; }
  uint64_t bytes() const { return bytes_; }
  uint64_t manifests() const { return manifests_; }

 private:
  awc::cas::ManifestEntry Put(const std::string& name, const std::string& data,
                              awc::cas::ManifestEntry::Kind kind) {
    awc::cas::ManifestEntry e;
    e.name = name;
    e.kind = kind;
    e.digest = awc::cas::DigestOf(data);
    e.size = data.size();
    auto key = awc::store::MakeKey(tenant_, e.digest);
    if (!key.ok()) Die(key.status().message());
    Check(store_.Put(*key, data), "put");
    ++objects_;
    bytes_ += data.size();
    return e;
  }

  awc::store::ObjectStore& store_;
  std::string tenant_;
  uint64_t objects_ = 0, bytes_ = 0, manifests_ = 0;
};

std::string Name(const char* prefix, uint64_t n, int width) {
  char buf[32];
  snprintf(buf, sizeof buf, "%s%0*" PRIu64, prefix, width, n);
  return buf;
}

int Gen(const Args& a) {
  auto settings = LoadSettings();
  struct ev_loop* loop = ev_loop_new(EVFLAG_AUTO);
  auto store = OpenStore(settings, loop);
  std::string tenant = a.Str("tenant");
  const uint64_t total = static_cast<uint64_t>(a.Num("total-mib", 256)) << 20;
  const uint64_t large = static_cast<uint64_t>(a.Num("large-mib", 32)) << 20;
  const double share = a.Num("large-share", 0.5);
  const int fanout = static_cast<int>(a.Num("fanout", 8));
  const uint64_t seed = static_cast<uint64_t>(a.Num("seed", 1));
  const uint64_t n_large =
      large == 0 ? 0
                 : static_cast<uint64_t>(static_cast<double>(total) * share /
                                             static_cast<double>(large) +
                                         0.5);
  const uint64_t small_budget = total - std::min(total, n_large * large);

  double t0 = Now();
  TreeWriter w(*store, tenant);
  std::string data;
  uint64_t blob = 0;
  std::vector<awc::cas::ManifestEntry> root;
  for (uint64_t i = 0; i < n_large; ++i) {
    Fill(data, large, seed, blob++);
    root.push_back(w.Blob(Name("large-", i, 2), data));
  }
  // Small blobs of 4-64 KiB (uniform), dealt round-robin to the leaves.
  const int leaves = fanout * fanout;
  std::vector<std::vector<awc::cas::ManifestEntry>> leaf(leaves);
  uint64_t state = seed ^ 0x5bd1e995ULL;
  uint64_t small_bytes = 0, n_small = 0;
  while (small_bytes < small_budget) {
    uint64_t size = 4096 + SplitMix(state) % (60 * 1024 + 1);
    size = std::min(size, small_budget - small_bytes);
    Fill(data, size, seed, blob++);
    leaf[n_small % leaves].push_back(w.Blob(Name("f", n_small, 6), data));
    small_bytes += size;
    ++n_small;
  }
  for (int d = 0; d < fanout; ++d) {
    std::vector<awc::cas::ManifestEntry> dir;
    for (int s = 0; s < fanout; ++s) {
      dir.push_back(
          w.Manifest(Name("s", s, 2), std::move(leaf[d * fanout + s])));
    }
    root.push_back(w.Manifest(Name("d", d, 2), std::move(dir)));
  }
  awc::cas::ManifestEntry top = w.Manifest("root", std::move(root));
  double secs = Now() - t0;
  printf("{\"root\": \"%s\", \"objects\": %" PRIu64 ", \"bytes\": %" PRIu64
         ", \"manifests\": %" PRIu64 ", \"large_blobs\": %" PRIu64
         ", \"small_blobs\": %" PRIu64 ", \"seconds\": %.3f}\n",
         top.digest.c_str(), w.objects(), w.bytes(), w.manifests(), n_large,
         n_small, secs);
  store.reset();
  ev_loop_destroy(loop);
  return 0;
}

// ------------------------------------------------------------------ walk

int Walk(const Args& a) {
  auto settings = LoadSettings();
  struct ev_loop* loop = ev_loop_new(EVFLAG_AUTO);
  auto store = OpenStore(settings, loop);
  std::string tenant = a.Str("tenant");
  std::string root = a.Str("root");
  awc::cas::ClosureLimits limits = awc::options::ClosureLimitsFrom(settings);
  int64_t checkpoints = 0;
  Cpu c0 = Cpu::Self();
  double t0 = Now();
  auto report = awc::cas::WalkClosure(*store, tenant, root, limits, [&] {
    ++checkpoints;
    return Status::OK();
  });
  double secs = Now() - t0;
  Cpu c1 = Cpu::Self();
  if (!report.ok()) Die("walk: " + report.status().message());
  if (report->verdict != awc::cas::Verdict::kOk) {
    Die(std::string("walk verdict ") + awc::cas::VerdictCode(report->verdict) +
        " on " + report->digest + ": " + report->detail);
  }
  printf(
      "{\"scheme\": \"%s\", \"parallelism\": %d, \"seconds\": %.6f, "
      "\"cpu_user\": %.3f, \"cpu_sys\": %.3f, \"objects\": %" PRIu64
      ", "
      "\"bytes\": %" PRIu64 ", \"reads\": %" PRIu64
      ", \"checkpoints\": %" PRId64,
      store->scheme(), store->parallelism(), secs, c1.user - c0.user,
      c1.sys - c0.sys, report->objects.size(), report->bytes, report->reads,
      checkpoints);
#if AWC_WITH_S3
  if (std::string(store->scheme()) == "s3") {
    awc::store::S3Stats st = awc::store::GetS3Stats(*store);
    printf(", \"max_in_flight\": %d, \"transfers\": %" PRId64
           ", \"connections\": %" PRId64,
           st.max_in_flight, st.transfers, st.connections_opened);
  }
#endif
  printf("}\n");
  store.reset();
  ev_loop_destroy(loop);
  return 0;
}

// ----------------------------------------------------------------- scale

// A field of /proc/self/status in KiB ("VmRSS", "VmHWM").
long StatusKib(const char* field) {
  FILE* f = fopen("/proc/self/status", "r");
  if (f == nullptr) Die("cannot read /proc/self/status");
  char line[256];
  long kib = -1;
  size_t n = strlen(field);
  while (fgets(line, sizeof line, f) != nullptr) {
    if (strncmp(line, field, n) == 0 && line[n] == ':') {
      kib = strtol(line + n + 1, nullptr, 10);
      break;
    }
  }
  fclose(f);
  if (kib < 0) Die(std::string("no ") + field + " in /proc/self/status");
  return kib;
}

// Writes tiny objects into the store: for file:// straight into its layout
// (plain writes, no fsync: a benchmark tree, not data to keep), else with
// the store's Put.
class TinyWriter {
 public:
  TinyWriter(awc::store::ObjectStore& store, std::string tenant,
             std::string file_root)
      : store_(store),
        tenant_(std::move(tenant)),
        root_(std::move(file_root)) {}

  awc::cas::ManifestEntry Write(const std::string& name,
                                const std::string& data,
                                awc::cas::ManifestEntry::Kind kind) {
    awc::cas::ManifestEntry e{name, kind, awc::cas::DigestOf(data),
                              data.size()};
    auto key = awc::store::MakeKey(tenant_, e.digest);
    if (!key.ok()) Die(key.status().message());
    if (root_.empty()) {
      Check(store_.Put(*key, data), "put");
    } else {
      std::string path = root_ + "/" + awc::store::RelativeKey(*key);
      std::string dir = path.substr(0, path.rfind('/'));
      if (dirs_.insert(dir).second) std::filesystem::create_directories(dir);
      FILE* f = fopen(path.c_str(), "wb");
      if (f == nullptr ||
          fwrite(data.data(), 1, data.size(), f) != data.size() ||
          fclose(f) != 0) {
        Die("cannot write " + path);
      }
    }
    ++objects_;
    return e;
  }
  awc::cas::ManifestEntry Manifest(const std::string& name,
                                   std::vector<awc::cas::ManifestEntry> es) {
    awc::cas::Manifest m;
    m.entries = std::move(es);  // names are made in order
    return Write(name, awc::cas::SerializeManifest(m),
                 awc::cas::ManifestEntry::Kind::kManifest);
  }
  uint64_t objects() const { return objects_; }

 private:
  awc::store::ObjectStore& store_;
  std::string tenant_, root_;
  std::set<std::string> dirs_;
  uint64_t objects_ = 0;
};

// N tiny blobs under manifests of `fanout` entries: root -> mids ->
// leaves -> blobs. Returns the root digest.
std::string MakeTinyTree(TinyWriter& w, uint64_t n, uint64_t fanout) {
  std::vector<awc::cas::ManifestEntry> blobs, leaves, mids;
  auto close_mid = [&] {
    mids.push_back(w.Manifest(Name("m", mids.size(), 6), std::move(leaves)));
    leaves.clear();
  };
  for (uint64_t i = 0; i < n; ++i) {
    blobs.push_back(w.Write(Name("f", blobs.size(), 6),
                            "awc bench blob " + std::to_string(i) + "\n",
                            awc::cas::ManifestEntry::Kind::kBlob));
    if (blobs.size() == fanout || i + 1 == n) {
      leaves.push_back(
          w.Manifest(Name("l", leaves.size(), 6), std::move(blobs)));
      blobs.clear();
      if (leaves.size() == fanout) close_mid();
    }
  }
  if (!leaves.empty() || mids.empty()) close_mid();
  return w.Manifest("", std::move(mids)).digest;
}

// Objects in a tiny tree of `blobs` blobs: the blobs, the leaves, the mids
// (at least one) and the root.
uint64_t TinyTreeObjects(uint64_t blobs, uint64_t fanout) {
  uint64_t leaves = (blobs + fanout - 1) / fanout;
  uint64_t mids = std::max<uint64_t>(1, (leaves + fanout - 1) / fanout);
  return blobs + leaves + mids + 1;
}

int Scale(const Args& a) {
  auto settings = LoadSettings();
  struct ev_loop* loop = ev_loop_new(EVFLAG_AUTO);
  auto store = OpenStore(settings, loop);
  std::string tenant = a.Str("tenant");
  const uint64_t total = static_cast<uint64_t>(a.Num("objects", 100000));
  const uint64_t fanout = static_cast<uint64_t>(a.Num("fanout", 1000));
  if (total < 3 || fanout < 1) Die("--objects must be at least 3");
  // As many blobs as make `total` objects with the manifests.
  uint64_t n = total;
  while (TinyTreeObjects(n, fanout) > total) {
    n -= std::min(n - 1, TinyTreeObjects(n, fanout) - total);
  }
  std::string scheme = store->scheme();
  std::string file_root;
  if (scheme == "file") {
    file_root = settings.cas_url.substr(std::string("file://").size());
  } else if (scheme != "memory") {
    Die("scale needs a file:// or memory:// store");
  }
  // A file:// tree is made once; its root digest is kept beside it.
  std::string mark = file_root + "/.bench-scale-" + std::to_string(n) + "-" +
                     std::to_string(fanout);
  std::string root;
  bool reused = false;
  double t0 = Now();
  if (!file_root.empty()) {
    std::ifstream in(mark);
    reused = static_cast<bool>(std::getline(in, root)) && !root.empty();
  }
  if (!reused) {
    TinyWriter w(*store, tenant, file_root);
    root = MakeTinyTree(w, n, fanout);
    if (!file_root.empty()) std::ofstream(mark) << root << "\n";
  }
  double gen_secs = Now() - t0;
  awc::cas::ClosureLimits limits = awc::options::ClosureLimitsFrom(settings);
  malloc_trim(0);
  {
    // Reset VmHWM to the current RSS: the peak is the walk's alone.
    FILE* f = fopen("/proc/self/clear_refs", "w");
    if (f == nullptr || fputs("5", f) < 0 || fclose(f) != 0) {
      Die("cannot reset the peak RSS (/proc/self/clear_refs)");
    }
  }
  long idle = StatusKib("VmRSS");
  Cpu c0 = Cpu::Self();
  t0 = Now();
  auto report = awc::cas::WalkClosure(*store, tenant, root, limits,
                                      [] { return Status::OK(); });
  double secs = Now() - t0;
  Cpu c1 = Cpu::Self();
  long peak = StatusKib("VmHWM");
  if (!report.ok()) Die("walk: " + report.status().message());
  if (report->verdict != awc::cas::Verdict::kOk) {
    Die(std::string("walk verdict ") + awc::cas::VerdictCode(report->verdict) +
        " on " + report->digest + ": " + report->detail);
  }
  uint64_t objects = report->objects.size();
  printf("{\"scheme\": \"%s\", \"objects\": %" PRIu64 ", \"blobs\": %" PRIu64
         ", \"seconds\": %.6f, \"cpu_user\": %.3f, "
         "\"cpu_sys\": %.3f, \"idle_kib\": %ld, \"peak_kib\": %ld, "
         "\"gen_seconds\": %.3f, \"reused\": %s}\n",
         scheme.c_str(), objects, n, secs, c1.user - c0.user, c1.sys - c0.sys,
         idle, peak, gen_secs, reused ? "true" : "false");
  store.reset();
  ev_loop_destroy(loop);
  return 0;
}

// ------------------------------------------------------------ hash-files

int HashFiles(const Args& a) {
  if (a.positional().size() != 1) Die("usage: hash-files DIR");
  std::vector<std::string> paths;
  for (const auto& e :
       std::filesystem::recursive_directory_iterator(a.positional()[0])) {
    if (e.is_regular_file()) paths.push_back(e.path().string());
  }
  std::sort(paths.begin(), paths.end());
  std::vector<char> buf(64 * 1024);
  uint64_t bytes = 0;
  Cpu c0 = Cpu::Self();
  double t0 = Now();
  for (const std::string& p : paths) {
    FILE* f = fopen(p.c_str(), "rbe");
    if (f == nullptr) Die("cannot open " + p);
    setvbuf(f, nullptr, _IONBF, 0);
    awc::digest::Sha256 h;
    size_t n;
    while ((n = fread(buf.data(), 1, buf.size(), f)) > 0) {
      h.Update(buf.data(), n);
      bytes += n;
    }
    fclose(f);
    (void)h.FinishHex();
  }
  double secs = Now() - t0;
  Cpu c1 = Cpu::Self();
  printf("{\"files\": %zu, \"bytes\": %" PRIu64
         ", \"seconds\": %.6f, "
         "\"cpu_user\": %.3f, \"cpu_sys\": %.3f}\n",
         paths.size(), bytes, secs, c1.user - c0.user, c1.sys - c0.sys);
  return 0;
}

// -------------------------------------------------------------------- gc

awc::gc::SweepOptions SweepOptionsFrom(const awc::config::Settings& s,
                                       const std::string& holder) {
  awc::gc::SweepOptions o = awc::options::SweepOptionsFrom(s);
  o.holder = holder;
  return o;
}

std::string Q(awc::db::PgConn& conn, const std::string& sql,
              const awc::db::Params& params = {}) {
  auto r = conn.Exec(sql, params);
  if (!r.ok()) Die(sql + ": " + r.status().message());
  return r->rows() > 0 ? r->GetString(0, 0) : "";
}

int Gc(const Args& a) {
  auto settings = LoadSettings();
  struct ev_loop* loop = ev_loop_new(EVFLAG_AUTO);
  auto store = OpenStore(settings, loop);
  auto conn = Connect(settings);
  std::string tenant = a.Str("tenant");
  int64_t objects_before =
      std::stoll(Q(*conn,
                   "SELECT count(*) FROM awc.objects WHERE tenant_id "
                   "= $1",
                   {tenant}));

  // Plan only, twice: the first warms PostgreSQL's buffers after the
  // database was copied from its template.
  double dry_secs[2];
  awc::gc::SweepReport dry;
  for (int i = 0; i < 2; ++i) {
    auto o = SweepOptionsFrom(settings, "bench-dry-" + std::to_string(i));
    o.dry_run = true;
    double t0 = Now();
    auto r = awc::gc::RunSweep(*conn, *store, tenant, o, nullptr);
    dry_secs[i] = Now() - t0;
    if (!r.ok()) Die("dry run: " + r.status().message());
    if (r->verdict != awc::gc::SweepReport::Verdict::kDryRun) {
      Die(std::string("dry run verdict ") + awc::gc::VerdictName(r->verdict) +
          ": " + r->reason);
    }
    dry = *r;
  }

  // The objects the full epoch will delete: the dry run's candidates.
  auto cand = conn->Exec(
      "SELECT digest, size FROM awc.gc_candidates WHERE epoch_id = $1 "
      "ORDER BY seq",
      {std::to_string(dry.epoch_id)});
  if (!cand.ok()) Die(cand.status().message());
  std::set<std::string> expected;
  double f0 = Now();
  std::string filler;
  for (int i = 0; i < cand->rows(); ++i) {
    std::string digest = cand->GetString(i, 0);
    Fill(filler, static_cast<uint64_t>(cand->GetInt(i, 1)), 7,
         static_cast<uint64_t>(i));
    auto key = awc::store::MakeKey(tenant, digest);
    if (!key.ok()) Die(key.status().message());
    Check(store->Put(*key, filler), "put candidate");
    expected.insert(digest);
  }
  double fill_secs = Now() - f0;

  // One full epoch, timed phase by phase.
  struct Mark {
    const char* what;
    double t;
  };
  std::vector<Mark> marks;
  auto at = [&](const char* what) {
    marks.push_back({what, Now()});
    return Status::OK();
  };
  awc::gc::SweepHooks hooks;
  hooks.after_plan = [&](int64_t) { return at("plan"); };
  hooks.after_mark = [&](int64_t) { return at("mark"); };
  hooks.after_store_delete = [&](int64_t) { return at("store"); };
  hooks.before_canary_check = [&](int64_t) { return at("canary"); };
  auto o = SweepOptionsFrom(settings, "bench-full");
  o.dry_run = false;
  Cpu c0 = Cpu::Self();
  double t0 = Now();
  auto full = awc::gc::RunSweep(
      *conn, *store, tenant, o, [&] { return at("checkpoint"); }, hooks);
  double t_end = Now();
  Cpu c1 = Cpu::Self();
  if (!full.ok()) Die("full epoch: " + full.status().message());
  if (full->verdict != awc::gc::SweepReport::Verdict::kCompleted) {
    Die(std::string("full epoch verdict ") +
        awc::gc::VerdictName(full->verdict) + ": " + full->reason);
  }
  // Phases: plan | per batch: mark (renew lock, old-VALIDATING check, the
  // re-check under row locks) | store (select the batch's DELETING rows,
  // DeleteMany) | finish (rows removed, counts) | canary verification |
  // complete (epoch COMPLETED, audit, lock released).
  double plan = 0, mark = 0, store_del = 0, finish = 0, canary = 0;
  double last = t0;
  const char* prev = "start";
  int batches = 0;
  for (const Mark& m : marks) {
    double d = m.t - last;
    std::string w = m.what;
    if (w == "plan") {
      plan += d;
    } else if (w == "mark") {
      mark += d;
      ++batches;
    } else if (w == "store") {
      store_del += d;
    } else if (w == "canary" ||
               (w == "checkpoint" && std::string(prev) == "store")) {
      finish += d;
    } else if (w == "checkpoint" && std::string(prev) == "canary") {
      canary += d;
    } else {
      Die(std::string("unexpected phase order: ") + prev + " -> " + m.what);
    }
    last = m.t;
    prev = m.what;
  }
  double complete = t_end - last;

  // Sanity: exactly the dry run's candidates are gone, store and inventory.
  auto deleted = conn->Exec(
      "SELECT digest FROM awc.gc_candidates WHERE epoch_id = $1 AND state = "
      "'DELETED'",
      {std::to_string(full->epoch_id)});
  if (!deleted.ok()) Die(deleted.status().message());
  std::set<std::string> got;
  for (int i = 0; i < deleted->rows(); ++i)
    got.insert(deleted->GetString(i, 0));
  bool same = got == expected;
  int64_t still_stored = 0;
  for (const std::string& d : expected) {
    auto key = awc::store::MakeKey(tenant, d);
    if (store->Head(*key).ok()) ++still_stored;
  }
  int64_t objects_after =
      std::stoll(Q(*conn,
                   "SELECT count(*) FROM awc.objects WHERE tenant_id "
                   "= $1",
                   {tenant}));

  printf("{\"objects\": %" PRId64 ", \"eligible\": %" PRId64
         ", \"dry_first_seconds\": %.6f, \"dry_seconds\": %.6f, "
         "\"store_fill_seconds\": %.3f, \"full_seconds\": %.6f, "
         "\"plan\": %.6f, \"mark\": %.6f, \"store_delete\": %.6f, "
         "\"finish\": %.6f, \"canary_check\": %.6f, \"complete\": %.6f, "
         "\"batches\": %d, \"deleted\": %" PRId64 ", \"kept\": %" PRId64
         ", \"same_candidates\": %s, \"still_stored\": %" PRId64
         ", \"objects_after\": %" PRId64 ", \"client_cpu\": %.3f}\n",
         objects_before, full->planned, dry_secs[0], dry_secs[1], fill_secs,
         t_end - t0, plan, mark, store_del, finish, canary, complete, batches,
         full->deleted, full->kept, same ? "true" : "false", still_stored,
         objects_after, (c1.user - c0.user) + (c1.sys - c0.sys));
  conn.reset();
  store.reset();
  ev_loop_destroy(loop);
  if (!same || still_stored != 0 ||
      objects_after != objects_before - full->deleted) {
    Die("the full epoch did not delete exactly the dry run's candidates");
  }
  return 0;
}

int Migrate(const Args&) {
  auto settings = LoadSettings();
  auto conn = Connect(settings);
  auto applied = awc::migrate::Migrate(*conn);
  if (!applied.ok()) Die("migrate: " + applied.status().message());
  printf("{\"applied\": %zu}\n", applied->size());
  return 0;
}

int ExplainPlan(const Args& a) {
  auto settings = LoadSettings();
  auto conn = Connect(settings);
  std::string tenant = a.Str("tenant");
  if (!awc::digest::IsValidTenantId(tenant)) Die("malformed tenant id");
  Check(conn->Exec("BEGIN").status(), "BEGIN");
  std::string epoch = Q(
      *conn,
      "INSERT INTO awc.gc_epochs (tenant_id, grace_secs, dry_run, batch_size, "
      "canary_size, state) VALUES ($1, $2, true, $3, $4, 'PLANNED') "
      "RETURNING id",
      {tenant, std::to_string(settings.gc_grace_secs),
       std::to_string(settings.gc_batch_size),
       std::to_string(settings.gc_canary_size)});
  // PREPARE infers the parameter types as PQexecParams does; the first
  // executions of a prepared statement get a custom plan for their values,
  // which is what the sweep's unnamed statement gets every time.
  Check(conn->Exec(std::string("PREPARE awc_plan AS ") + awc::gc::sql::kPlan)
            .status(),
        "PREPARE");
  // EXECUTE takes no bind parameters: the values are spelled out (the
  // tenant id was validated, the rest are numbers).
  auto r = conn->Exec("EXPLAIN (ANALYZE, BUFFERS) EXECUTE awc_plan('" + tenant +
                      "', '" + std::to_string(settings.gc_grace_secs) + "', '" +
                      epoch + "', '" + std::to_string(settings.gc_batch_size) +
                      "')");
  if (!r.ok()) Die("EXPLAIN: " + r.status().message());
  for (int i = 0; i < r->rows(); ++i)
    printf("%s\n", r->GetString(i, 0).c_str());
  (void)conn->Exec("ROLLBACK");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr,
            "usage: awc-bench-storage gen|walk|scale|hash-files|gc|migrate|"
            "explain-plan "
            "...\n(see bench/storage_bench_main.cc)\n");
    return 2;
  }
  std::string cmd = argv[1];
  Args args(argc, argv, 2);
  if (cmd == "gen") return Gen(args);
  if (cmd == "walk") return Walk(args);
  if (cmd == "scale") return Scale(args);
  if (cmd == "hash-files") return HashFiles(args);
  if (cmd == "gc") return Gc(args);
  if (cmd == "migrate") return Migrate(args);
  if (cmd == "explain-plan") return ExplainPlan(args);
  fprintf(stderr, "awc-bench-storage: unknown subcommand %s\n", cmd.c_str());
  return 2;
}
