#include "handlers/snapshot_scrub.h"

#include <string>
#include <variant>
#include <vector>

#include "cas/closure.h"
#include "catalog/snapshot_verdict.h"
#include "catalog/snapshots.h"
#include "catalog/states.h"
#include "common/json.h"
#include "handlers/outcomes.h"
#include "obs/log.h"
#include "obs/metrics.h"

namespace awc::handlers {
namespace {

constexpr int kPage = 2000;

struct ScrubTally {
  std::vector<cas::BadObject> bad;
  int64_t objects = 0;
  int64_t bytes = 0;
};

// Re-verifies the recorded closure page by page (memory stays bounded
// whatever the closure's size).
Status ScrubRecordedClosure(JobContext& ctx, const catalog::Snapshot& snap,
                            ScrubTally* tally) {
  std::string after;
  for (;;) {
    AWC_ASSIGN_OR_RETURN(std::vector<catalog::ClosurePageEntry> page,
                         catalog::ClosurePage(ctx.db(), snap, after, kPage));
    if (page.empty()) return Status::OK();
    std::vector<cas::VerifyTarget> targets;
    for (const auto& e : page) {
      targets.push_back({e.digest, e.size});
      tally->bytes += static_cast<int64_t>(e.size.value_or(0));
    }
    AWC_ASSIGN_OR_RETURN(
        std::vector<cas::BadObject> bad,
        cas::VerifyObjects(ctx.store(), snap.tenant_id, targets,
                           [&ctx] { return ctx.Checkpoint(); }));
    tally->bad.insert(tally->bad.end(), bad.begin(), bad.end());
    tally->objects += static_cast<int64_t>(page.size());
    after = page.back().digest;
  }
}

// Counts the committed verdict; decay is also a warning, which names the
// snapshot and how many of its objects are bad (the digests are in the
// snapshot's failure).
void ReportVerdict(JobContext& ctx, const catalog::Snapshot& snap,
                   const ScrubTally& tally) {
  if (tally.bad.empty()) {
    ctx.metrics().CountSnapshotVerdict(catalog::SnapshotVerdict::kScrubClean);
    return;
  }
  ctx.metrics().CountSnapshotVerdict(catalog::SnapshotVerdict::kScrubDegraded);
  obs::Warn("job_" + std::to_string(ctx.job().id),
            "snapshot degraded: scrub found bad objects")
      .Int("snapshot_id", snap.id)
      .Str("tenant", snap.tenant_id)
      .Int("bad_objects", static_cast<int64_t>(tally.bad.size()))
      .Int("objects", tally.objects)
      .Str("first_bad", tally.bad.front().digest)
      .Emit();
}

}  // namespace

queue::Outcome ScrubSnapshot(JobContext& ctx, const SnapshotPayload& p) {
  auto subject =
      LoadSnapshotIn(ctx, p.snapshot_id, {catalog::SnapshotState::kReady});
  if (auto* done = std::get_if<queue::Outcome>(&subject)) return *done;
  const catalog::Snapshot& snap = std::get<catalog::Snapshot>(subject);
  ScrubTally tally;
  Status s = ScrubRecordedClosure(ctx, snap, &tally);
  if (!s.ok()) return RetryOn(s);
  if (tally.objects == 0) {
    // READY without recorded closure rows (set READY by someone else than
    // validation): walk it from the root instead.
    Result<cas::ClosureReport> walk = cas::WalkClosure(
        ctx.store(), snap.tenant_id, snap.root_digest, ctx.options().closure,
        [&ctx] { return ctx.Checkpoint(); });
    if (!walk.ok()) return RetryOn(walk.status());
    tally.objects = static_cast<int64_t>(walk->objects.size());
    tally.bytes = static_cast<int64_t>(walk->bytes);
    if (walk->verdict != cas::Verdict::kOk) {
      tally.bad.push_back({walk->digest, walk->verdict});
    }
  }
  Result<bool> applied =
      tally.bad.empty()
          ? catalog::CommitScrubClean(ctx.db(), snap, tally.objects,
                                      tally.bytes)
          : catalog::CommitScrubDegraded(ctx.db(), snap, tally.bad,
                                         tally.objects, tally.bytes);
  if (!applied.ok()) return RetryOn(applied.status());
  if (!*applied) return Skipped("changed during scrub");
  ReportVerdict(ctx, snap, tally);
  JsonObject result;
  result.Str("verdict", tally.bad.empty() ? "clean" : "degraded")
      .Int("objects", tally.objects)
      .Int("bytes", tally.bytes)
      .Int("bad", static_cast<int64_t>(tally.bad.size()));
  return queue::Outcome::Complete(result.Dump());
}

}  // namespace awc::handlers
