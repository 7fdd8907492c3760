// The `gen` subcommand of awc-bench-storage (storage_bench_main.cc).
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
#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <string>
#include <vector>

#include "cas/manifest.h"
#include "storage_bench_common.h"
#include "store/object_store.h"

namespace awc::bench {

namespace {

// Writes the objects of a tree into `store` for `tenant` with the store's
// own Put, counting objects, bytes and manifests; a manifest's entries are
// sorted by name first.
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

}  // namespace

int Gen(const Args& a) {
  StoreSetup setup;
  awc::store::ObjectStore& store = *setup.store;
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
  TreeWriter w(store, tenant);
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
  return 0;
}

}  // namespace awc::bench
