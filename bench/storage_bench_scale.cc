// awc-bench-scale (storage_bench_scale_main.cc).
//
//   awc-bench-scale --tenant T --objects N [--fanout 1000]
//       The walk at scale: a tree of N objects at most, tiny blobs (about
//       20 bytes each) under manifests of `fanout` entries (root -> mids ->
//       leaves -> blobs). Over file:// it is written once as plain files (no
//       fsync) and reused by later runs (.bench-scale-N-F in the store root
//       holds its root digest); over memory:// it is made in this process with
//       Put. Then the peak RSS is reset (/proc/self/clear_refs), the idle
//       RSS read and one cas::WalkClosure run. Prints its wall and CPU
//       seconds, objects, and the RSS before it (VmRSS) and its peak
//       (VmHWM), in KiB.
#include <malloc.h>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "cas/closure.h"
#include "cas/manifest.h"
#include "options/module_options.h"
#include "storage_bench_common.h"
#include "store/object_store.h"

namespace awc::bench {

namespace {

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

}  // namespace

int Scale(const Args& a) {
  StoreSetup setup;
  const awc::config::Settings& settings = setup.settings;
  awc::store::ObjectStore& store = *setup.store;
  std::string tenant = a.Str("tenant");
  const uint64_t total = static_cast<uint64_t>(a.Num("objects", 100000));
  const uint64_t fanout = static_cast<uint64_t>(a.Num("fanout", 1000));
  if (total < 3 || fanout < 1) Die("--objects must be at least 3");
  // As many blobs as make `total` objects with the manifests.
  uint64_t n = total;
  while (TinyTreeObjects(n, fanout) > total) {
    n -= std::min(n - 1, TinyTreeObjects(n, fanout) - total);
  }
  std::string scheme = store.scheme();
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
    TinyWriter w(store, tenant, file_root);
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
  auto report = awc::cas::WalkClosure(store, tenant, root, limits,
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
  return 0;
}

}  // namespace awc::bench
