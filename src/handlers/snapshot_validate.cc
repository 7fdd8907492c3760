#include "handlers/snapshot_validate.h"

#include <memory>
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
#include "handlers/object_repair.h"
#include "handlers/outcomes.h"
#include "obs/metrics.h"

namespace awc::handlers {
namespace {

// Objects one run restores before it hands over to its next run (each
// costs a walk again).
constexpr size_t kMaxRepairsPerRun = 64;

// A verdict a copy of the object can change: the store lost it, or holds
// it with the wrong bytes or length.
bool Repairable(const cas::ClosureReport& report) {
  return report.read_bad && (report.verdict == cas::Verdict::kMissingObject ||
                             report.verdict == cas::Verdict::kDigestMismatch ||
                             report.verdict == cas::Verdict::kSizeMismatch);
}

}  // namespace

queue::Outcome ValidateSnapshot(JobContext& ctx, const SnapshotPayload& p) {
  auto subject =
      LoadSnapshotIn(ctx, p.snapshot_id, {catalog::SnapshotState::kValidating});
  if (auto* done = std::get_if<queue::Outcome>(&subject)) return *done;
  const catalog::Snapshot& snap = std::get<catalog::Snapshot>(subject);
  JsonObject result;
  // Taken before the walk reads anything: an object GC deletes after the
  // read must not join the closure at commit, and what the walk reads is
  // verified no earlier than this (catalog/objects.h).
  Result<catalog::ReadMark> mark =
      catalog::GcWatermark(ctx.db(), snap.tenant_id);
  if (!mark.ok()) return RetryOn(mark.status());
  // Subtrees that READY snapshots of the tenant already hold are taken on
  // trust, not read again (docs/store.md, "Shared content"). An object the
  // store lost or holds damaged is restored from the repair store, when
  // there is one, and the walk runs again (docs/store.md, "Repair").
  std::vector<std::string> repaired;
  Result<cas::ClosureReport> report = Status::Internal("not walked");
  // What the walk's probe found without an inventory row: registered at
  // commit (spilled: a producer that registers nothing has a whole tree).
  auto files = std::make_shared<cas::SpillFiles>(ctx.options().closure.spill);
  std::shared_ptr<cas::Spool<cas::ClosureObject>> unregistered;
  for (;;) {
    unregistered = std::make_shared<cas::Spool<cas::ClosureObject>>(
        files.get(), ctx.options().closure.spill.memory_bytes / 4);
    report = cas::WalkClosure(
        ctx.store(), snap.tenant_id, snap.root_digest, ctx.options().closure,
        [&ctx] { return ctx.Checkpoint(); },
        [&](const std::vector<cas::ClosureObject>& objects)
            -> Result<std::vector<bool>> {
          AWC_ASSIGN_OR_RETURN(
              std::vector<catalog::ProbedObject> probed,
              catalog::ProbeObjects(ctx.db(), snap.tenant_id, objects));
          std::vector<bool> trusted(probed.size());
          for (size_t i = 0; i < probed.size(); ++i) {
            if (probed[i].deleting) {
              return Status::Transient("object " + objects[i].digest() +
                                       " is being deleted by GC");
            }
            if (probed[i].unregistered) {
              AWC_RETURN_IF_ERROR(unregistered->Append(objects[i]));
            }
            trusted[i] = probed[i].trusted;
          }
          return trusted;
        });
    if (!report.ok()) return RetryOn(report.status());
    if (!Repairable(*report) || !CanRepair(ctx)) break;
    if (repaired.size() >= kMaxRepairsPerRun) {
      return queue::Outcome::Defer(
          0, std::to_string(repaired.size()) +
                 " objects repaired; the validation goes on repairing");
    }
    Result<std::optional<RepairResult>> r =
        RepairObject(ctx, RepairRequest{.tenant = snap.tenant_id,
                                        .digest = report->digest,
                                        .size = report->declared_size,
                                        .found_by = kSnapshotValidateKind,
                                        .snapshot = snap.id});
    if (!r.ok()) return RetryOn(r.status());
    if (*r != RepairResult::kRepaired) break;
    repaired.push_back(report->digest);
  }

  int64_t objects = static_cast<int64_t>(report->objects.size());
  int64_t bytes = static_cast<int64_t>(report->bytes);
  Result<bool> applied = false;
  if (report->verdict == cas::Verdict::kOk) {
    Status finished = unregistered->Finish();
    if (!finished.ok()) return RetryOn(finished);
    Result<catalog::ValidatedCommit> commit = catalog::CommitValidated(
        ctx.db(), snap, *report, *mark,
        cas::ClosureObjects(files, unregistered), ctx.options().closure);
    if (!commit.ok()) return RetryOn(commit.status());
    if (commit->verdict != cas::Verdict::kOk) {
      // What the walk trusted breaks a limit: the snapshot fails as a
      // full walk would have failed it.
      report->verdict = commit->verdict;
      report->digest = snap.root_digest;
      report->detail = commit->detail;
    } else {
      applied = commit->applied;
      objects = commit->objects;
      bytes = commit->bytes;
    }
  }
  if (report->verdict != cas::Verdict::kOk) {
    applied = catalog::CommitValidationFailed(ctx.db(), snap, *report);
  }
  if (!applied.ok()) return RetryOn(applied.status());
  if (!*applied) {
    // Another run decided first: skipped, with the state it left (wanting
    // no state, LoadSnapshotIn always ends the job).
    return std::get<queue::Outcome>(LoadSnapshotIn(ctx, p.snapshot_id, {}));
  }
  ctx.metrics().CountSnapshotVerdict(
      report->verdict == cas::Verdict::kOk
          ? catalog::SnapshotVerdict::kValidateReady
          : catalog::SnapshotVerdict::kValidateFailed);
  if (report->verdict == cas::Verdict::kOk) {
    result.Str("verdict", "ready")
        .Int("objects", objects)
        .Int("bytes", bytes)
        .Int("read", static_cast<int64_t>(report->reads))
        .Int("trusted", static_cast<int64_t>(report->trusted));
    if (!repaired.empty()) result.Strs("repaired", repaired);
  } else {
    result.Str("verdict", "failed")
        .Str("code", cas::VerdictCode(report->verdict))
        .Str("digest", report->digest);
  }
  return queue::Outcome::Complete(result.Dump());
}

}  // namespace awc::handlers
