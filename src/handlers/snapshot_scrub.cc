#include "handlers/snapshot_scrub.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "cas/closure.h"
#include "catalog/dag.h"
#include "catalog/objects.h"
#include "catalog/snapshot_verdict.h"
#include "catalog/snapshots.h"
#include "catalog/states.h"
#include "common/json.h"
#include "digest/ids.h"
#include "handlers/object_repair.h"
#include "handlers/outcomes.h"
#include "obs/log.h"
#include "obs/metrics.h"
#include "queue/admin.h"

namespace awc::handlers {
namespace {

constexpr int kPage = 2000;

struct ScrubTally {
  std::vector<cas::BadObject> bad;
  std::vector<std::string> repaired;  // bad when read, good again now
  int64_t objects = 0;
  int64_t bytes = 0;
  int64_t read = 0;
  int64_t fresh = 0;  // verified recently enough: not read again
  // What the process title and heartbeat show: done of the whole closure
  // (the fresh objects count as done).
  obs::JobProgress progress;
};

// Scrub reads at the host's read budget (docs/store.md, "The scrub
// budget").
cas::PaceFn Pacer(JobContext& ctx) {
  return [&ctx](uint64_t bytes, uint64_t objects) {
    return ctx.Pace(bytes, objects);
  };
}

// The same, counting each batch into `progress` once it has been read
// (when the next one is about to be, or the page is done) and reporting
// it: the process title moves with every batch, not every page.
class ReadingPacer {
 public:
  ReadingPacer(JobContext& ctx, obs::JobProgress* progress)
      : ctx_(ctx), progress_(progress) {}
  ReadingPacer(const ReadingPacer&) = delete;
  ReadingPacer& operator=(const ReadingPacer&) = delete;
  ~ReadingPacer() { Settle(); }

  operator cas::PaceFn() {
    return [this](uint64_t bytes, uint64_t objects) {
      Settle();
      ctx_.Progress(*progress_);
      pending_bytes_ = bytes;
      pending_objects_ = objects;
      return ctx_.Pace(bytes, objects);
    };
  }

 private:
  void Settle() {
    progress_->objects += static_cast<int64_t>(pending_objects_);
    progress_->bytes += static_cast<int64_t>(pending_bytes_);
    pending_objects_ = pending_bytes_ = 0;
  }

  JobContext& ctx_;
  obs::JobProgress* progress_;
  uint64_t pending_bytes_ = 0;
  uint64_t pending_objects_ = 0;
};

// A bad object a copy can mend: lost, or the wrong bytes or length.
bool Repairable(cas::Verdict why) {
  return why == cas::Verdict::kMissingObject ||
         why == cas::Verdict::kDigestMismatch ||
         why == cas::Verdict::kSizeMismatch;
}

// Of `bad`, those the repair store restores (and that read good after) are
// taken out and added to the tally's repaired (docs/store.md, "Repair").
Status RepairBad(JobContext& ctx, const catalog::Snapshot& snap,
                 const std::vector<cas::VerifyTarget>& targets,
                 std::vector<cas::BadObject>* bad, ScrubTally* tally) {
  if (!CanRepair(ctx) || bad->empty()) return Status::OK();
  std::vector<cas::VerifyTarget> copied;
  for (const cas::BadObject& b : *bad) {
    if (!Repairable(b.why)) continue;
    std::optional<uint64_t> size;
    for (const cas::VerifyTarget& t : targets) {
      if (t.digest == b.digest) size = t.size;
    }
    AWC_ASSIGN_OR_RETURN(
        std::optional<RepairResult> r,
        RepairObject(ctx, RepairRequest{.tenant = snap.tenant_id,
                                        .digest = b.digest,
                                        .size = size,
                                        .found_by = kSnapshotScrubKind,
                                        .snapshot = snap.id}));
    if (r == RepairResult::kRepaired) copied.push_back({b.digest, size});
  }
  if (copied.empty()) return Status::OK();
  // What the store now serves is read again: only that is trusted.
  AWC_ASSIGN_OR_RETURN(std::vector<cas::BadObject> still,
                       cas::VerifyObjects(
                           ctx.store(), snap.tenant_id, copied,
                           [&ctx] { return ctx.Checkpoint(); }, Pacer(ctx)));
  auto named = [](const std::string& d) {
    return [&d](const cas::BadObject& x) { return x.digest == d; };
  };
  for (const cas::VerifyTarget& c : copied) {
    if (std::any_of(still.begin(), still.end(), named(c.digest))) continue;
    tally->repaired.push_back(c.digest);
    bad->erase(std::remove_if(bad->begin(), bad->end(), named(c.digest)),
               bad->end());
  }
  return Status::OK();
}

// Verifies `targets`, repairing what it can, adding to the tally; returns
// the good ones' digests.
Result<std::vector<std::string>> VerifyPage(
    JobContext& ctx, const catalog::Snapshot& snap,
    const std::vector<cas::VerifyTarget>& targets, ScrubTally* tally) {
  AWC_ASSIGN_OR_RETURN(std::vector<cas::BadObject> bad,
                       cas::VerifyObjects(
                           ctx.store(), snap.tenant_id, targets,
                           [&ctx] { return ctx.Checkpoint(); },
                           ReadingPacer(ctx, &tally->progress)));
  AWC_RETURN_IF_ERROR(RepairBad(ctx, snap, targets, &bad, tally));
  tally->read += static_cast<int64_t>(targets.size());
  std::vector<std::string> good;
  size_t next_bad = 0;  // bad comes back in target order
  for (const cas::VerifyTarget& t : targets) {
    if (next_bad < bad.size() && bad[next_bad].digest == t.digest) {
      ++next_bad;
    } else {
      good.push_back(t.digest);
    }
  }
  tally->bad.insert(tally->bad.end(), bad.begin(), bad.end());
  return good;
}

// A snapshot recorded as a DAG: its closure comes from the recorded
// entries, spooled so memory stays bounded, and the objects verified
// within `reverify_after_secs` or since `requested_at` (by the scrub of a
// snapshot that shares them, or by a validation) are not read again. Each
// page read is stamped verified at the database's clock before its reads.
Status ScrubRecordedDag(JobContext& ctx, const catalog::Snapshot& snap,
                        int64_t reverify_after_secs,
                        const std::string& requested_at, ScrubTally* tally) {
  auto files = std::make_shared<cas::SpillFiles>(ctx.options().closure.spill);
  auto stale = std::make_shared<cas::Spool<cas::ClosureObject>>(
      files.get(), ctx.options().closure.spill.memory_bytes);
  AWC_RETURN_IF_ERROR(catalog::ForEachRecordedObject(
      ctx.db(), snap.tenant_id, snap.root_digest, reverify_after_secs,
      requested_at, [&](const catalog::RecordedObject& o) -> Status {
        ++tally->objects;
        tally->bytes += static_cast<int64_t>(o.size);
        if (o.fresh) {
          ++tally->fresh;
          ++tally->progress.objects;
          tally->progress.bytes += static_cast<int64_t>(o.size);
          return Status::OK();
        }
        cas::ClosureObject c;
        if (!digest::ParseDigest(o.digest, &c.sha256)) {
          return Status::Internal("recorded digest " + o.digest);
        }
        c.size = o.size;
        return stale->Append(c);
      }));
  AWC_RETURN_IF_ERROR(stale->Finish());
  tally->progress.objects_total = tally->objects;
  tally->progress.bytes_total = tally->bytes;
  ctx.Progress(tally->progress);
  cas::Spooled<cas::ClosureObject> list(files, stale);
  return list.ForEachBatch(
      kPage, [&](const std::vector<cas::ClosureObject>& batch) -> Status {
        std::vector<cas::VerifyTarget> targets;
        for (const cas::ClosureObject& c : batch) {
          targets.push_back({c.digest(), c.size});
        }
        AWC_ASSIGN_OR_RETURN(std::string read_since,
                             catalog::DatabaseClock(ctx.db()));
        AWC_ASSIGN_OR_RETURN(std::vector<std::string> good,
                             VerifyPage(ctx, snap, targets, tally));
        ctx.Progress(tally->progress);
        return catalog::MarkVerified(ctx.db(), snap.tenant_id, good,
                                     read_since);
      });
}

// Closure rows from before the DAG (awc.legacy_closures), page by page
// (memory stays bounded whatever the closure's size).
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
    AWC_RETURN_IF_ERROR(VerifyPage(ctx, snap, targets, tally).status());
    tally->objects += static_cast<int64_t>(page.size());
    ctx.Progress(tally->progress);
    after = page.back().digest;
  }
}

// Counts the committed verdict; decay is also a warning, which names the
// snapshot and how many of its objects are bad (the digests are in the
// snapshot's failure).
void ReportVerdict(JobContext& ctx, const catalog::Snapshot& snap,
                   const ScrubTally& tally,
                   const std::vector<int64_t>& also_degraded) {
  if (tally.bad.empty()) {
    ctx.metrics().CountSnapshotVerdict(catalog::SnapshotVerdict::kScrubClean);
    return;
  }
  ctx.metrics().CountSnapshotVerdict(catalog::SnapshotVerdict::kScrubDegraded);
  for (size_t i = 0; i < also_degraded.size(); ++i) {
    ctx.metrics().CountSnapshotVerdict(
        catalog::SnapshotVerdict::kScrubDegraded);
  }
  obs::Warn("job_" + std::to_string(ctx.job().id),
            "snapshot degraded: scrub found bad objects")
      .Int("snapshot_id", snap.id)
      .Str("tenant", snap.tenant_id)
      .Int("bad_objects", static_cast<int64_t>(tally.bad.size()))
      .Int("objects", tally.objects)
      .Str("first_bad", tally.bad.front().digest)
      .Int("also_degraded", static_cast<int64_t>(also_degraded.size()))
      .Emit();
}

}  // namespace

queue::Outcome ScrubSnapshot(JobContext& ctx, const ScrubPayload& p) {
  // With a repair store, a DEGRADED snapshot is scrubbed too: repaired
  // whole, it is READY again (docs/store.md, "Repair").
  auto subject = CanRepair(ctx)
                     ? LoadSnapshotIn(ctx, p.snapshot_id,
                                      {catalog::SnapshotState::kReady,
                                       catalog::SnapshotState::kDegraded})
                     : LoadSnapshotIn(ctx, p.snapshot_id,
                                      {catalog::SnapshotState::kReady});
  if (auto* done = std::get_if<queue::Outcome>(&subject)) return *done;
  const catalog::Snapshot& snap = std::get<catalog::Snapshot>(subject);
  bool degraded = snap.state == catalog::SnapshotState::kDegraded;
  // A scrub promises that every object it reaches was verified after it
  // was requested (its job's insertion): what another job verified since
  // is not read again; nor, for the scheduler's scrubs, what was verified
  // within the interval they give (docs/store.md, "Scrub over shared
  // content"). A degraded snapshot's every object is read: the damage is
  // the point.
  int64_t reverify_after_secs = degraded ? 0 : p.reverify_after_secs;
  std::string requested_at;
  if (!degraded) {
    Result<std::string> created = queue::JobCreatedAt(ctx.db(), ctx.job().id);
    if (!created.ok()) return RetryOn(created.status());
    requested_at = *created;
  }
  ScrubTally tally;
  // A snapshot that holds no references (validated before the DAG, or set
  // READY by someone else than validation) is walked in full, as a
  // validation would: clean, its closure is recorded from the walk and it
  // is scrubbed as a DAG from then on.
  std::optional<cas::ClosureReport> walked;
  catalog::ReadMark mark;
  if (!snap.holds_refs) {
    Result<catalog::ReadMark> taken =
        catalog::GcWatermark(ctx.db(), snap.tenant_id);
    if (!taken.ok()) return RetryOn(taken.status());
    mark = *taken;
    Result<cas::ClosureReport> walk = cas::WalkClosure(
        ctx.store(), snap.tenant_id, snap.root_digest, ctx.options().closure,
        [&ctx] { return ctx.Checkpoint(); });
    if (!walk.ok()) return RetryOn(walk.status());
    if (walk->verdict == cas::Verdict::kOk) {
      tally.objects = static_cast<int64_t>(walk->objects.size());
      tally.read = static_cast<int64_t>(walk->reads);
      tally.bytes = static_cast<int64_t>(walk->bytes);
      walked = std::move(*walk);
    } else {
      // Every bad object of the recorded rows, not just the walk's first.
      Status s = ScrubRecordedClosure(ctx, snap, &tally);
      if (!s.ok()) return RetryOn(s);
      if (tally.objects == 0) {
        tally.read = static_cast<int64_t>(walk->reads);
        tally.bad.push_back({walk->digest, walk->verdict});
      }
    }
  } else {
    Status s =
        ScrubRecordedDag(ctx, snap, reverify_after_secs, requested_at, &tally);
    if (!s.ok()) return RetryOn(s);
  }
  std::vector<int64_t> also_degraded;
  Result<bool> applied = true;  // a degraded one still bad stays as it was
  if (degraded && tally.bad.empty()) {
    applied = catalog::CommitScrubRestored(ctx.db(), snap, tally.objects,
                                           tally.bytes, tally.repaired);
  } else if (!degraded && tally.bad.empty()) {
    applied = catalog::CommitScrubClean(
        ctx.db(), snap, tally.objects, tally.bytes, walked ? &*walked : nullptr,
        mark, tally.repaired);
  } else if (!degraded) {
    applied = catalog::CommitScrubDegraded(
        ctx.db(), snap, tally.bad, tally.objects, tally.bytes, &also_degraded);
  }
  if (!applied.ok()) return RetryOn(applied.status());
  if (!*applied) return Skipped("changed during scrub");
  if (!degraded) ReportVerdict(ctx, snap, tally, also_degraded);
  const char* verdict =
      tally.bad.empty() ? (degraded ? "restored" : "clean") : "degraded";
  JsonObject result;
  result.Str("verdict", verdict)
      .Int("objects", tally.objects)
      .Int("bytes", tally.bytes)
      .Int("read", tally.read)
      .Int("fresh", tally.fresh)
      .Int("bad", static_cast<int64_t>(tally.bad.size()))
      .Ints("also_degraded", also_degraded);
  if (!tally.repaired.empty()) result.Strs("repaired", tally.repaired);
  return queue::Outcome::Complete(result.Dump());
}

}  // namespace awc::handlers
