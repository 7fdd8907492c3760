// A property test of GC over shared content: random DAGs in which new
// snapshots reuse subtrees of live, released and half-deleted snapshots,
// touching only what they upload and the tops of what they reuse (the
// cheaper producer rule, docs/data-model.md), interleaved with
// validations, clean scrubs, releases (by the worker and by plain SQL), the
// passing of time and GC epochs that crash at every one of their steps, or
// run whole between a validation's reads and its commit.
// After every step: every READY and DEGRADED snapshot's closure is in the
// store, and every reference count is what the recorded DAG says it is.
#include <gtest/gtest.h>

#include <cstdlib>
#include <random>
#include <set>

#include "cas/closure.h"
#include "cas/manifest.h"
#include "catalog/dag.h"
#include "catalog/dag_sql.h"
#include "catalog/objects.h"
#include "catalog/snapshots.h"
#include "gc/sweep_testing.h"
#include "handlers/snapshot_scrub.h"
#include "handlers/snapshot_validate.h"
#include "store/file_store.h"
#include "tests/support/cas_fixture.h"
#include "tests/support/counting_store.h"

namespace awc::testing {
namespace {

constexpr int64_t kGrace = 100;
const char* const kTenant = "p";

class DagPropertyTest : public ::testing::TestWithParam<unsigned> {
 protected:
  DagPropertyTest() : rng_(GetParam()) {
    db_.Migrate();
    auto st = store::NewFileStore(dir_.path());
    EXPECT_TRUE(st.ok()) << st.status().message();
    store_ = std::move(*st);
    reads_ = std::make_unique<CountingStore>(*store_);
    ctx_ = std::make_unique<TestContext>(db_, *reads_);
    // Now and then a whole epoch runs while a validation walks: after one
    // of its reads, before its commit (not inside another epoch's step).
    reads_->after_get = [this](const std::string&) {
      if (sweeping_ || Pick(40) != 0) return;
      Sweep(/*interfere=*/false);
    };
    db_.Exec("INSERT INTO awc.tenants (id) VALUES ('p')");
  }

  int Pick(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng_); }

  struct Object {
    std::string digest;
    std::string bytes;
    bool manifest = false;
  };

  // A new manifest over `entries`; its bytes in `out`.
  cas::ManifestEntry NewManifest(std::vector<cas::ManifestEntry> entries,
                                 const std::string& name,
                                 std::vector<Object>* out) {
    std::sort(entries.begin(), entries.end(),
              [](const auto& a, const auto& b) { return a.name < b.name; });
    cas::Manifest m{entries};
    std::string bytes = cas::SerializeManifest(m);
    std::string digest = cas::DigestOf(bytes);
    out->push_back({digest, bytes, true});
    return {name, cas::ManifestEntry::Kind::kManifest, digest, bytes.size()};
  }
  cas::ManifestEntry NewBlob(const std::string& name,
                             std::vector<Object>* out) {
    std::string bytes = "blob-" + std::to_string(Pick(40));
    std::string digest = cas::DigestOf(bytes);
    out->push_back({digest, bytes, false});
    return {name, cas::ManifestEntry::Kind::kBlob, digest, bytes.size()};
  }
  // A manifest some earlier snapshot named, in any state (a live one, a
  // released one, one GC is halfway through): (digest, size).
  std::optional<std::pair<std::string, uint64_t>> ReusableManifest() {
    auto conn = db_.Connect("producer-look");
    auto r = conn->Exec(
        "SELECT d, s FROM (SELECT 'sha256:' || encode(child, 'hex') AS d, "
        "child_size AS s FROM awc.object_edges WHERE child_manifest UNION "
        "SELECT o.digest, o.size FROM awc.snapshots n JOIN awc.objects o ON "
        "o.tenant_id = n.tenant_id AND o.digest = n.root_digest) x ORDER BY "
        "random() LIMIT 1");
    EXPECT_TRUE(r.ok());
    if (!r.ok() || r->rows() == 0) return std::nullopt;
    return std::make_pair(r->GetString(0, 0),
                          static_cast<uint64_t>(r->GetInt(0, 1)));
  }

  // A producer on the cheaper rule: uploads what the inventory lacks,
  // touches what it uploaded and the tops of the subtrees it reuses, and
  // inserts the snapshot in that transaction. A reused top or an upload
  // that GC is deleting sends it away (it tries again later).
  void Produce() {
    std::vector<Object> fresh;
    std::vector<std::string> reused;
    std::vector<cas::ManifestEntry> top;
    int parts = 1 + Pick(4);
    for (int i = 0; i < parts; ++i) {
      std::string name = "e" + std::to_string(i);
      int kind = Pick(3);
      if (kind == 0) {
        if (auto m = ReusableManifest()) {
          top.push_back(
              {name, cas::ManifestEntry::Kind::kManifest, m->first, m->second});
          reused.push_back(m->first);
          continue;
        }
      }
      if (kind == 1) {
        std::vector<cas::ManifestEntry> inner;
        for (int f = 0; f < 1 + Pick(3); ++f) {
          inner.push_back(NewBlob("f" + std::to_string(f), &fresh));
        }
        if (Pick(2) == 0) {
          if (auto m = ReusableManifest()) {
            inner.push_back({"sub", cas::ManifestEntry::Kind::kManifest,
                             m->first, m->second});
            reused.push_back(m->first);
          }
        }
        top.push_back(NewManifest(inner, name, &fresh));
        continue;
      }
      top.push_back(NewBlob(name, &fresh));
    }
    std::string root = NewManifest(top, "", &fresh).digest;

    auto conn = db_.Connect("producer");
    std::vector<std::string> digests;
    std::vector<uint64_t> sizes;
    std::vector<bool> uploaded;
    std::set<std::string> seen;
    for (const Object& o : fresh) {
      if (!seen.insert(o.digest).second) continue;
      auto states = catalog::InventoryStates(*conn, kTenant, {o.digest});
      ASSERT_TRUE(states.ok());
      auto it = states->find(o.digest);
      if (it != states->end() && it->second != catalog::ObjectState::kLive) {
        return;  // being deleted: wait for GC, try later
      }
      bool upload = it == states->end();
      if (upload) {
        ASSERT_TRUE(
            store_->Put(*store::MakeKey(kTenant, o.digest), o.bytes).ok());
      }
      digests.push_back(o.digest);
      sizes.push_back(o.bytes.size());
      uploaded.push_back(upload);
    }
    for (const std::string& d : reused) {
      if (!seen.insert(d).second) continue;
      digests.push_back(d);
      sizes.push_back(0);
      uploaded.push_back(false);
    }
    Status s = db::InTransaction(*conn, [&]() -> Status {
      AWC_ASSIGN_OR_RETURN(
          std::vector<std::string> lost,
          catalog::RegisterObjects(*conn, kTenant, digests, sizes, uploaded));
      if (!lost.empty()) return Status::FailedPrecondition("deleting");
      return catalog::InsertSnapshot(*conn, kTenant, std::nullopt, root)
          .status();
    });
    if (s.ok()) ++produced_;
  }

  void Validate() {
    std::string id = db_.Scalar(
        "SELECT id FROM awc.snapshots WHERE state = 'VALIDATING' ORDER BY "
        "random() LIMIT 1");
    if (id.empty()) return;
    ctx_->NextJob();
    queue::Outcome o = handlers::ValidateSnapshot(
        *ctx_, handlers::SnapshotPayload{std::stoll(id)});
    // Retried while an object is being deleted or a trust was withdrawn;
    // failed when it reused a subtree GC had already taken apart.
    EXPECT_TRUE(o.kind == queue::Outcome::Kind::kComplete ||
                o.kind == queue::Outcome::Kind::kRetry)
        << o.error;
    if (o.kind == queue::Outcome::Kind::kRetry && ++retries_[id] > 3) {
      db_.Exec("UPDATE awc.snapshots SET state = 'FAILED' WHERE id = $1",
               {id});  // attempts spent: dead-lettered
    }
    if (o.kind != queue::Outcome::Kind::kComplete) return;
    std::string verdict = ResultField(o, "verdict");
    if (verdict == "ready") ++ready_;
    if (verdict == "failed") {
      EXPECT_EQ(ResultField(o, "code"), "missing_object") << o.result;
    }
  }

  void Scrub() {
    std::string id = db_.Scalar(
        "SELECT id FROM awc.snapshots WHERE state = 'READY' ORDER BY random() "
        "LIMIT 1");
    if (id.empty()) return;
    ctx_->NextJob();
    queue::Outcome o = handlers::ScrubSnapshot(
        *ctx_, handlers::ScrubPayload{std::stoll(id), Pick(2) * 2 * kGrace});
    ASSERT_EQ(o.kind, queue::Outcome::Kind::kComplete) << o.error;
    EXPECT_EQ(ResultField(o, "verdict"), "clean") << o.result;
  }

  void Release() {
    std::string id = db_.Scalar(
        "SELECT id FROM awc.snapshots WHERE state = 'READY' ORDER BY random() "
        "LIMIT 1");
    if (id.empty()) return;
    if (Pick(2) == 0) {
      // A control plane, with plain SQL: the next DAG change drops the
      // root's reference.
      db_.Exec(
          "UPDATE awc.snapshots SET state = 'RELEASED', released_at = now() "
          "WHERE id = $1",
          {id});
      return;
    }
    auto conn = db_.Connect("release");
    auto snap = catalog::LoadSnapshot(*conn, std::stoll(id));
    ASSERT_TRUE(snap.ok() && snap->has_value());
    ASSERT_TRUE(catalog::ReleaseSnapshot(*conn, **snap, "prop", false).ok());
    // As the handlers do after the commit, or (when that failed) left to
    // the next epoch.
    if (Pick(3) > 0) {
      auto dropped = catalog::DropStrayRootRefsNow(*conn, kTenant);
      ASSERT_TRUE(dropped.ok() || dropped.status().IsTransient())
          << dropped.status().message();
    }
  }

  // Another epoch's first step: a few manifests' file entries get their
  // counts, between two steps of this one.
  void CountSome() {
    auto conn = db_.Connect("count");
    auto counted = catalog::CountFileEntries(*conn, kTenant, 1 + Pick(3));
    ASSERT_TRUE(counted.ok() || counted.status().IsTransient())
        << counted.status().message();
  }

  void PassTime() {
    std::string secs = std::to_string(Pick(2 * kGrace));
    db_.Exec(
        "UPDATE awc.objects SET created_at = created_at - make_interval("
        "secs => $1), last_seen_at = last_seen_at - make_interval(secs => "
        "$1)",
        {secs});
    db_.Exec(
        "UPDATE awc.snapshots SET created_at = created_at - make_interval("
        "secs => $1)",
        {secs});
  }

  // A step of someone else between two steps of an epoch.
  Status Interfere() {
    switch (Pick(6)) {
      case 0:
        Produce();
        break;
      case 1:
        Validate();
        break;
      case 2:
        Release();
        break;
      case 3:
        return Pick(4) == 0 ? Status::Internal("crash") : Status::OK();
      case 4:
        CountSome();
        break;
      default:
        break;
    }
    return Status::OK();
  }

  void Sweep(bool interfere = true) {
    if (interfere && Pick(10) < 7) {
      // Mostly the fleet keeps up with validation.
      for (int i = 0; i < 20 && db_.Int("SELECT count(*) FROM awc.snapshots "
                                        "WHERE state = 'VALIDATING'") > 0;
           ++i) {
        Validate();
      }
      db_.Exec(
          "UPDATE awc.snapshots SET state = 'FAILED' WHERE state = "
          "'VALIDATING'");  // the rest: given up on by their producers
    }
    gc::SweepOptions o;
    o.grace_secs = kGrace;
    o.batch_size = 3;
    o.canary_size = 2;
    o.holder = "prop";
    gc::SweepHooks hooks;
    if (interfere) {
      hooks.after_plan = [this](int64_t) { return Interfere(); };
      hooks.after_mark = [this](int64_t) { return Interfere(); };
      hooks.before_store_delete = [this](int64_t) { return Interfere(); };
      hooks.after_store_delete = [this](int64_t) { return Interfere(); };
      hooks.before_canary_check = [this](int64_t) { return Interfere(); };
    }
    auto conn = db_.Connect("gc");
    sweeping_ = true;
    auto r = gc::RunSweepWithHooks(*conn, *store_, kTenant, o, nullptr, hooks);
    sweeping_ = false;
    if (r.ok()) {
      EXPECT_NE(gc::VerdictName(r->verdict), std::string("aborted"))
          << r->reason;
      deleted_ += r->deleted;
    } else {
      EXPECT_TRUE(r.status().message() == "crash" || r.status().IsTransient())
          << r.status().message();
    }
  }

  void CheckInvariants(int round) {
    auto conn = db_.Connect("check");
    auto snaps = conn->Exec(
        "SELECT id, root_digest, state FROM awc.snapshots WHERE state IN "
        "('READY', 'DEGRADED')");
    ASSERT_TRUE(snaps.ok());
    for (int i = 0; i < snaps->rows(); ++i) {
      auto report = cas::WalkClosure(*store_, kTenant, snaps->GetString(i, 1),
                                     cas::ClosureLimits{}, nullptr);
      ASSERT_TRUE(report.ok()) << report.status().message();
      ASSERT_EQ(report->verdict, cas::Verdict::kOk)
          << "round " << round << ": snapshot " << snaps->GetString(i, 0)
          << " (" << snaps->GetString(i, 2) << ") lost " << report->digest
          << ": " << report->detail;
      // The recorded closure is the closure.
      ASSERT_EQ(db_.Int("SELECT count(*) FROM awc.snapshot_objects WHERE "
                        "snapshot_id = $1",
                        {snaps->GetString(i, 0)}),
                static_cast<int64_t>(report->objects.size()))
          << "round " << round << ": snapshot " << snaps->GetString(i, 0);
    }
    // Each count: the roots that hold a reference to it, and the recorded
    // entries of referenced manifests that name it (a file entry once its
    // manifest's file entries are counted).
    std::string wrong = db_.Scalar(
        "SELECT string_agg(o.digest || ' has ' || o.refs, ', ') FROM "
        "awc.objects o WHERE o.tenant_id = 'p' AND o.refs <> (SELECT count(*) "
        "FROM awc.snapshots s WHERE s.tenant_id = 'p' AND s.holds_refs AND "
        "s.root_digest = o.digest) + (SELECT count(*) FROM awc.object_edges e "
        "JOIN awc.objects m ON m.tenant_id = 'p' AND m.digest = 'sha256:' || "
        "encode(e.parent, 'hex') WHERE e.tenant_id = 'p' AND e.child = "
        "decode(substr(o.digest, 8), 'hex') AND m.refs > 0 AND "
        "m.manifest_entries AND (e.child_manifest OR m.entries_counted))");
    ASSERT_EQ(wrong, "NULL") << "round " << round;
    // Held objects (referenced, or named by an uncounted manifest) are LIVE.
    ASSERT_EQ(db_.Int("SELECT count(*) FROM awc.objects o WHERE o.tenant_id "
                      "= 'p' AND o.state <> 'LIVE' AND " AWC_DAG_HELD_UNCOUNTED(
                          "o", "'p'")),
              0)
        << "round " << round;
    shared_ = std::max(
        shared_, db_.Int("SELECT count(*) FROM awc.objects WHERE refs > 1"));
    // Referenced objects are LIVE.
    ASSERT_EQ(db_.Int("SELECT count(*) FROM awc.objects WHERE refs > 0 AND "
                      "state <> 'LIVE'"),
              0)
        << "round " << round;
  }

  TestDatabase db_;
  TempDir dir_;
  std::unique_ptr<store::ObjectStore> store_;
  std::unique_ptr<CountingStore> reads_;  // the validations' and scrubs'
  std::unique_ptr<TestContext> ctx_;
  bool sweeping_ = false;
  std::mt19937 rng_;
  std::map<std::string, int> retries_;
  int produced_ = 0, ready_ = 0;
  int64_t deleted_ = 0;
  int64_t shared_ = 0;  // the most objects with more than one reference
};

TEST_P(DagPropertyTest, SharedClosuresSurviveEveryInterleaving) {
  for (int round = 0; round < 150; ++round) {
    int op = Pick(20);
    if (op < 6) {
      Produce();
    } else if (op < 10) {
      Validate();
    } else if (op < 11) {
      Scrub();
    } else if (op < 13) {
      Release();
    } else if (op < 16) {
      PassTime();
    } else {
      Sweep();
    }
    if (HasFatalFailure()) return;
    CheckInvariants(round);
    if (HasFatalFailure()) return;
  }
  // The run shared, validated and deleted, not just produced.
  EXPECT_GT(produced_, 10);
  EXPECT_GT(ready_, 5);
  EXPECT_GT(deleted_, 0);
  EXPECT_GT(shared_, 0);
}

// Ten seeds in make check; AWC_DAG_PROPERTY_SEEDS=N runs seeds 1..N when
// the binary is run by hand (docs/testing.md).
std::vector<unsigned> Seeds() {
  unsigned n = 10;
  if (const char* v = getenv("AWC_DAG_PROPERTY_SEEDS"); v && atoi(v) > 0) {
    n = static_cast<unsigned>(atoi(v));
  }
  std::vector<unsigned> seeds;
  for (unsigned i = 1; i <= n; ++i) seeds.push_back(i);
  return seeds;
}

INSTANTIATE_TEST_SUITE_P(Seeds, DagPropertyTest, ::testing::ValuesIn(Seeds()));

}  // namespace
}  // namespace awc::testing
