// The closure walk with a trust function: what it takes on trust is not
// read, what lies under it is not walked, and the report still lists the
// manifests it read with their entries, so they can be recorded.
#include <set>

#include "cas/closure_test_fixture.h"

namespace awc::cas {
namespace {

class ClosureTrustTest : public ClosureTest {
 protected:
  // Walks `root`, trusting the digests in `trusted`; every question the
  // walk asks is kept in asked_.
  ClosureReport WalkTrusting(const std::set<std::string>& trusted,
                             const std::string& root,
                             const ClosureLimits& limits = {}) {
    TrustFn trust = [&](const std::vector<ClosureObject>& objs)
        -> Result<std::vector<bool>> {
      std::vector<bool> out;
      for (const ClosureObject& o : objs) {
        asked_.push_back(o);
        out.push_back(trusted.count(o.digest()) > 0);
      }
      return out;
    };
    Result<ClosureReport> r = WalkClosure(
        probe_, kTenant, root, limits, [] { return Status::OK(); }, trust);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : ClosureReport{};
  }
  std::set<std::string> Read() const {
    return {probe_.order().begin(), probe_.order().end()};
  }
  static std::set<std::string> Digests(const Spooled<ClosureEdge>& edges,
                                       bool parents) {
    std::set<std::string> out;
    Result<std::vector<ClosureEdge>> all = edges.All();
    EXPECT_TRUE(all.ok());
    for (const ClosureEdge& e : *all) {
      out.insert(digest::FormatDigest(parents ? e.parent : e.child));
    }
    return out;
  }

  std::vector<ClosureObject> asked_;
};

TEST_F(ClosureTrustTest, ATrustedSubtreeIsNeitherReadNorWalked) {
  ManifestEntry kept_blob = Blob("k", "kept");
  ManifestEntry kept = Dir("kept", {kept_blob, Dir("inner", {Blob("i", "i")})});
  ManifestEntry fresh_blob = Blob("f", "fresh");
  ManifestEntry fresh = Dir("fresh", {fresh_blob});
  ManifestEntry top = Blob("top", "top");
  ManifestEntry root_entry = Dir("", {kept, fresh, top});
  const std::string& root = root_entry.digest;

  ClosureReport r = WalkTrusting({kept.digest}, root);
  ASSERT_EQ(r.verdict, Verdict::kOk) << r.detail;
  EXPECT_EQ(Read(), (std::set<std::string>{root, fresh.digest,
                                           fresh_blob.digest, top.digest}));
  EXPECT_EQ(r.reads, 4u);
  EXPECT_EQ(r.trusted, 1u);
  // The trusted manifest is in the closure, marked; nothing under it is.
  EXPECT_EQ(Objects(r).size(), 5u);
  ClosureObject k = Find(r, kept.digest);
  EXPECT_TRUE(k.trusted);
  EXPECT_TRUE(k.is_manifest);
  EXPECT_EQ(k.size, kept.size);
  EXPECT_FALSE(Find(r, fresh.digest).trusted);
  EXPECT_EQ(r.bytes, kept.size + fresh.size + fresh_blob.size + top.size +
                         root_entry.size);
  // What was read and parsed, and its entries, for the catalog to record.
  Result<std::vector<digest::RawDigest>> manifests = r.manifests_read.All();
  ASSERT_TRUE(manifests.ok());
  std::set<std::string> parsed;
  for (const digest::RawDigest& d : *manifests) {
    parsed.insert(digest::FormatDigest(d));
  }
  EXPECT_EQ(parsed, (std::set<std::string>{root, fresh.digest}));
  EXPECT_EQ(Digests(r.edges, true), parsed);
  EXPECT_EQ(Digests(r.edges, false),
            (std::set<std::string>{kept.digest, fresh.digest, top.digest,
                                   fresh_blob.digest}));
}

TEST_F(ClosureTrustTest, TheWalkAsksWithDeclaredKindsAndSizes) {
  ManifestEntry dir = Dir("d", {Blob("a", "a")});
  ManifestEntry blob = Blob("b", "bb");
  std::string root = Root({dir, blob});
  ClosureReport r = WalkTrusting({}, root);
  ASSERT_EQ(r.verdict, Verdict::kOk);
  EXPECT_EQ(r.trusted, 0u);
  ASSERT_EQ(asked_.size(), 4u);  // every object once, before its read
  EXPECT_EQ(asked_[0].digest(), root);
  EXPECT_EQ(asked_[0].size, 0u);  // the root's size is not declared
  EXPECT_TRUE(asked_[0].is_manifest);
  for (size_t i = 1; i < asked_.size(); ++i) {
    if (asked_[i].digest() == dir.digest) {
      EXPECT_TRUE(asked_[i].is_manifest);
      EXPECT_EQ(asked_[i].size, dir.size);
    } else if (asked_[i].digest() == blob.digest) {
      EXPECT_FALSE(asked_[i].is_manifest);
      EXPECT_EQ(asked_[i].size, 2u);
    }
  }
  // Trusting nothing reads what a walk without trust reads.
  EXPECT_EQ(r.reads, 4u);
}

TEST_F(ClosureTrustTest, TrustIsBelievedWhateverTheStoreHolds) {
  // Trust is the catalog's promise that the subtree was verified: a walk
  // does not second-guess it (the catalog withdraws it from damaged
  // objects).
  ManifestEntry gone = Blob("g", "gone");
  ManifestEntry dir = Dir("d", {gone});
  std::string root = Root({dir});
  Result<std::vector<Status>> deleted =
      mem_->DeleteMany({*store::MakeKey(kTenant, gone.digest)});
  ASSERT_TRUE(deleted.ok() && (*deleted)[0].ok());
  EXPECT_EQ(WalkTrusting({dir.digest}, root).verdict, Verdict::kOk);
  EXPECT_EQ(WalkTrusting({}, root).verdict, Verdict::kMissingObject);
}

TEST_F(ClosureTrustTest, AnObjectTrustedOnOnePathIsNotReadOnAnother) {
  ManifestEntry shared = Dir("s", {Blob("x", "x")});
  ManifestEntry other = Dir("o", {Named(shared, "again"), Blob("y", "y")});
  std::string root = Root({shared, other});
  ClosureReport r = WalkTrusting({shared.digest}, root);
  ASSERT_EQ(r.verdict, Verdict::kOk);
  EXPECT_EQ(Read().count(shared.digest), 0u);
  EXPECT_EQ(r.trusted, 1u);
  EXPECT_EQ(Objects(r).size(), 4u);  // root, shared, other, y
}

TEST_F(ClosureTrustTest, AnErrorFromTrustStopsTheWalk) {
  std::string root = Root({Blob("a", "a")});
  Result<ClosureReport> r = WalkClosure(
      probe_, kTenant, root, {}, [] { return Status::OK(); },
      [](const std::vector<ClosureObject>&) -> Result<std::vector<bool>> {
        return Status::Transient("catalog down");
      });
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Status::Code::kTransient);
  EXPECT_TRUE(probe_.order().empty());
}

TEST_F(ClosureTrustTest, ASpilledWalkTrustsTheSame) {
  std::vector<ManifestEntry> dirs;
  std::set<std::string> trusted;
  for (int d = 0; d < 30; ++d) {
    std::vector<ManifestEntry> blobs;
    for (int i = 0; i < 20; ++i) {
      blobs.push_back(Blob("f" + std::to_string(i),
                           std::to_string(d) + "/" + std::to_string(i)));
    }
    dirs.push_back(Dir("d" + std::to_string(d), std::move(blobs)));
    if (d % 3 != 0) trusted.insert(dirs.back().digest);
  }
  std::string root = Root(dirs);
  ClosureReport wide = WalkTrusting(trusted, root);
  ClosureLimits tiny;
  tiny.spill.memory_bytes = kTinySpillBudget;
  ClosureReport spilled = WalkTrusting(trusted, root, tiny);
  ASSERT_EQ(wide.verdict, Verdict::kOk);
  EXPECT_EQ(wide.trusted, 20u);
  EXPECT_EQ(wide.reads, 1u + 10u + 10u * 20u);
  EXPECT_EQ(Objects(spilled), Objects(wide));
  EXPECT_EQ(spilled.trusted, wide.trusted);
  EXPECT_EQ(spilled.edges.size(), wide.edges.size());
  EXPECT_EQ(wide.edges.size(), 30u + 10u * 20u);
}

}  // namespace
}  // namespace awc::cas
