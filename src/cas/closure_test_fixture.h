// The fixture of the closure tests: a probing store (counts reads, records
// GetMany batches, injects errors, reorders completions) over the memory
// store, and builders for trees.
#ifndef AWC_CAS_CLOSURE_TEST_FIXTURE_H_
#define AWC_CAS_CLOSURE_TEST_FIXTURE_H_

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <iterator>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "cas/closure.h"
#include "cas/manifest.h"
#include "store/memory_store.h"

namespace awc::cas {

using Kind = ManifestEntry::Kind;
using store::ObjectKey;
using store::ObjectStore;

inline const std::string kTenant = "t1";

// Wraps a store: counts reads per digest, records GetMany batch sizes,
// injects errors per digest, and can finish a batch's requests in reverse
// order (as a store running them in parallel may).
class ProbeStore : public ObjectStore {
 public:
  explicit ProbeStore(ObjectStore& inner) : inner_(inner) {}

  const char* scheme() const override { return inner_.scheme(); }
  Status Get(const ObjectKey& key, const store::ChunkSink& sink) override {
    ++gets_[key.digest];
    order_.push_back(key.digest);
    auto it = faults_.find(key.digest);
    if (it != faults_.end()) return it->second;
    if (endless_.count(key.digest) > 0) {
      // Zeros until the sink stops the read (or a bound that no test
      // should reach).
      const std::string zeros(64 * 1024, '\0');
      while (endless_delivered_ < kEndlessBound) {
        endless_delivered_ += zeros.size();
        AWC_RETURN_IF_ERROR(sink(zeros));
      }
      return Status::OK();
    }
    return inner_.Get(key, sink);
  }
  void GetMany(std::vector<GetRequest>& requests) override {
    batches_.push_back(requests.size());
    if (reverse_) std::reverse(requests.begin(), requests.end());
    ObjectStore::GetMany(requests);
  }
  Result<uint64_t> Head(const ObjectKey& k) override { return inner_.Head(k); }
  Status Put(const ObjectKey& k, std::string_view d) override {
    return inner_.Put(k, d);
  }
  Status PutFile(const ObjectKey& k, const std::string& p) override {
    return inner_.PutFile(k, p);
  }
  Result<std::vector<Status>> DeleteMany(
      const std::vector<ObjectKey>& k) override {
    return inner_.DeleteMany(k);
  }
  Status List(const std::string& t, const std::string& a,
              const ListFn& f) override {
    return inner_.List(t, a, f);
  }
  Result<std::string> ReadMarker() override { return inner_.ReadMarker(); }
  Status WriteMarker(std::string_view c) override {
    return inner_.WriteMarker(c);
  }
  int parallelism() const override { return parallelism_; }

  void Fail(const std::string& digest, Status s) { faults_[digest] = s; }
  // The object `digest` streams zeros for ever, like a device or a server
  // that never ends its response.
  void Endless(const std::string& digest) { endless_.insert(digest); }
  uint64_t endless_delivered() const { return endless_delivered_; }
  static constexpr uint64_t kEndlessBound = 256 * 1024 * 1024;
  void ClearFaults() { faults_.clear(); }
  int gets(const std::string& digest) const {
    auto it = gets_.find(digest);
    return it == gets_.end() ? 0 : it->second;
  }
  const std::map<std::string, int>& all_gets() const { return gets_; }
  // The digests read, in the order the reads were issued.
  const std::vector<std::string>& order() const { return order_; }
  const std::vector<size_t>& batches() const { return batches_; }
  void set_parallelism(int p) { parallelism_ = p; }
  void set_reverse(bool r) { reverse_ = r; }
  // A store over the same objects with the same faults and settings, and
  // counters of its own.
  ProbeStore Twin() const {
    ProbeStore t(inner_);
    t.faults_ = faults_;
    t.endless_ = endless_;
    t.parallelism_ = parallelism_;
    t.reverse_ = reverse_;
    return t;
  }

 private:
  ObjectStore& inner_;
  std::map<std::string, Status> faults_;
  std::set<std::string> endless_;
  uint64_t endless_delivered_ = 0;
  std::map<std::string, int> gets_;
  std::vector<std::string> order_;
  std::vector<size_t> batches_;
  int parallelism_ = 1;
  bool reverse_ = false;
};

inline ManifestEntry Named(ManifestEntry e, const std::string& name) {
  e.name = name;
  return e;
}

inline std::string ManifestBytes(std::vector<ManifestEntry> entries) {
  std::sort(entries.begin(), entries.end(),
            [](const auto& a, const auto& b) { return a.name < b.name; });
  return SerializeManifest(Manifest{std::move(entries)});
}

class ClosureTest : public ::testing::Test {
 protected:
  // Stores `data` under `digest`, whatever its content.
  std::string PutAs(const std::string& digest, const std::string& data) {
    Result<ObjectKey> key = store::MakeKey(kTenant, digest);
    EXPECT_TRUE(key.ok() && mem_->Put(*key, data).ok());
    return digest;
  }
  std::string Put(const std::string& data) {
    return PutAs(DigestOf(data), data);
  }
  ManifestEntry Blob(const std::string& name, const std::string& data) {
    return {name, Kind::kBlob, Put(data), data.size()};
  }
  // An entry for a manifest stored with exactly `bytes`.
  ManifestEntry RawDir(const std::string& name, const std::string& bytes) {
    return {name, Kind::kManifest, Put(bytes), bytes.size()};
  }
  ManifestEntry Dir(const std::string& name,
                    std::vector<ManifestEntry> entries) {
    return RawDir(name, ManifestBytes(std::move(entries)));
  }
  std::string Root(std::vector<ManifestEntry> entries) {
    return Dir("", std::move(entries)).digest;
  }
  // root -> m1 -> ... -> m<depth> -> a blob; `deepest` gets m<depth>.
  std::string Chain(int depth, std::string* deepest) {
    ManifestEntry e = Dir("m", {Blob("leaf", "leaf")});
    *deepest = e.digest;
    for (int i = 1; i < depth; ++i) e = Dir("m", {e});
    return Root({e});
  }

  Status Checkpoint() {
    return ++checkpoints_ == fail_checkpoint_at_
               ? Status::FailedPrecondition("lease lost")
               : Status::OK();
  }
  Result<ClosureReport> Walk(const std::string& root,
                             const ClosureLimits& limits = {}) {
    return WalkClosure(probe_, kTenant, root, limits,
                       [this] { return Checkpoint(); });
  }
  Result<std::vector<BadObject>> Verify(
      const std::vector<VerifyTarget>& targets) {
    return VerifyObjects(probe_, kTenant, targets,
                         [this] { return Checkpoint(); });
  }
  // A walk that must end in a verdict, not a Status error. The same walk
  // with a spill budget of a few records (its sets, queues and sorts in
  // files) must end the same.
  ClosureReport MustWalk(const std::string& root,
                         const ClosureLimits& limits = {}) {
    Result<ClosureReport> r = Walk(root, limits);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    if (!r.ok()) return ClosureReport{};
    ProbeStore twin = probe_.Twin();
    ClosureLimits tiny = limits;
    tiny.spill.memory_bytes = kTinySpillBudget;
    Result<ClosureReport> s =
        WalkClosure(twin, kTenant, root, tiny, [] { return Status::OK(); });
    EXPECT_TRUE(s.ok()) << s.status().ToString();
    if (s.ok()) {
      EXPECT_EQ(VerdictCode(s->verdict), std::string(VerdictCode(r->verdict)));
      EXPECT_EQ(s->digest, r->digest);
      EXPECT_EQ(s->detail, r->detail);
      EXPECT_EQ(s->bytes, r->bytes);
      EXPECT_EQ(s->reads, r->reads);
      // Read in the same order as the walk just made on probe_.
      const std::vector<std::string>& all = probe_.order();
      size_t n = twin.order().size();
      EXPECT_TRUE(n <= all.size() &&
                  std::equal(twin.order().begin(), twin.order().end(),
                             all.end() - static_cast<std::ptrdiff_t>(n)));
      EXPECT_EQ(Objects(*s), Objects(*r));
    }
    return *r;
  }
  static constexpr size_t kTinySpillBudget = 1024;

  // The closure as (digest, size, manifest) in digest order.
  static std::vector<std::tuple<std::string, uint64_t, bool>> Objects(
      const ClosureReport& r) {
    Result<std::vector<ClosureObject>> all = r.objects.All();
    EXPECT_TRUE(all.ok()) << all.status().ToString();
    std::vector<std::tuple<std::string, uint64_t, bool>> out;
    if (!all.ok()) return out;
    for (const ClosureObject& o : *all) {
      out.emplace_back(o.digest(), o.size, o.is_manifest);
    }
    EXPECT_TRUE(std::is_sorted(out.begin(), out.end()));
    return out;
  }
  // The closure object `digest` (size 0 and not a manifest when absent).
  static ClosureObject Find(const ClosureReport& r, const std::string& digest) {
    Result<std::vector<ClosureObject>> all = r.objects.All();
    EXPECT_TRUE(all.ok());
    if (all.ok()) {
      for (const ClosureObject& o : *all) {
        if (o.digest() == digest) return o;
      }
    }
    ADD_FAILURE() << digest << " is not in the closure";
    return ClosureObject{};
  }
  void ExpectVerdict(const std::string& root, Verdict v,
                     const std::string& digest,
                     const ClosureLimits& limits = {}) {
    ClosureReport r = MustWalk(root, limits);
    EXPECT_EQ(VerdictCode(r.verdict), std::string(VerdictCode(v))) << r.detail;
    EXPECT_EQ(r.digest, digest);
    EXPECT_FALSE(r.detail.empty());
    EXPECT_TRUE(r.objects.empty());
  }

  std::unique_ptr<ObjectStore> mem_ = store::NewMemoryStore();
  ProbeStore probe_{*mem_};
  int checkpoints_ = 0;
  int fail_checkpoint_at_ = -1;
};

}  // namespace awc::cas

#endif  // AWC_CAS_CLOSURE_TEST_FIXTURE_H_
