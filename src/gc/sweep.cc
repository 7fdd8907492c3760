#include "gc/sweep.h"

#include <algorithm>
#include <string>
#include <vector>

#include "catalog/audit.h"
#include "catalog/dag.h"
#include "common/json.h"
#include "common/numbers.h"
#include "gc/eligible_tally.h"
#include "gc/gc_sql.h"
#include "gc/sweep_testing.h"
#include "obs/log.h"

namespace awc::gc {
namespace {

// S3 DeleteObjects takes at most 1000 keys; batches after the canary match.
constexpr int64_t kMaxBatch = 1000;
// How long taking the lock waits for a sweeper that is deleting a batch
// before the sweep is locked out (and its job deferred).
constexpr const char* kLockWait = "1000ms";
// Manifests whose file entries get their counts per transaction before a
// plan: a few dozen manifests of up to a few thousand files each, so a
// validation waiting for the DAG lock waits a fraction of a second.
constexpr int64_t kCountManifestsPerTxn = 32;

std::string S(int64_t v) { return std::to_string(v); }

class Sweep {
 public:
  Sweep(db::PgConn& conn, store::ObjectStore& store, std::string tenant,
        const SweepOptions& options, const std::function<Status()>& checkpoint,
        const SweepHooks& hooks)
      : conn_(conn),
        store_(store),
        tenant_(std::move(tenant)),
        opt_(options),
        checkpoint_(checkpoint),
        hooks_(hooks) {}

  Result<SweepReport> Run() {
    AWC_ASSIGN_OR_RETURN(bool locked, TakeLock());
    if (!locked) return report_;
    Status s = RunLocked();
    // Best effort: if the connection is gone the TTL frees the lock.
    if (!conn_.IsBroken()) {
      (void)conn_.Exec(sql::kReleaseLock, {tenant_, opt_.holder});
    }
    if (!s.ok()) return s;
    return report_;
  }

 private:
  Status Hook(const std::function<Status(int64_t)>& hook) {
    return hook ? hook(report_.epoch_id) : Status::OK();
  }

  Result<bool> TakeLock() {
    bool busy = false;
    Result<bool> took = db::InTransactionResult(conn_, [&]() -> Result<bool> {
      AWC_RETURN_IF_ERROR(
          conn_.Exec(sql::kBoundLockWait, {kLockWait}).status());
      Result<db::PgResult> r =
          conn_.Exec(sql::kTakeLock, {tenant_, opt_.holder, Ttl()});
      busy = !r.ok() && conn_.last_sqlstate() == "55P03";
      if (!r.ok()) return r.status();
      return r->rows() == 1;
    });
    if (!took.ok() && !busy) return took.status();
    if (took.ok() && *took) return true;
    report_.verdict = SweepReport::Verdict::kLockedOut;
    if (busy) {
      report_.reason = "GC lock of tenant " + tenant_ +
                       " is held by a sweeper deleting a batch";
      return false;
    }
    AWC_ASSIGN_OR_RETURN(db::PgResult h,
                         conn_.Exec(sql::kLockHolder, {tenant_}));
    report_.reason =
        "GC lock of tenant " + tenant_ + " is held by " +
        (h.rows() ? h.GetString(0, 0) : std::string("another sweep"));
    return false;
  }

  std::string Ttl() const { return SecondsText(opt_.lock_ttl_secs); }

  // Fencing: every batch starts by proving the lock is still ours.
  Status RenewLock() {
    AWC_ASSIGN_OR_RETURN(
        db::PgResult r,
        conn_.Exec(sql::kRenewLock, {tenant_, opt_.holder, Ttl()}));
    if (r.rows() == 0) {
      return Status::Transient("GC lock of tenant " + tenant_ +
                               " was lost (expired and taken over)");
    }
    return Status::OK();
  }

  Status RunLocked() {
    AWC_ASSIGN_OR_RETURN(bool go, ResumeOrPlan());
    if (!go) return Status::OK();
    AWC_RETURN_IF_ERROR(DeleteCandidates());
    // Not aborted by the canary nor stopped by a validation: complete.
    bool going = report_.verdict == SweepReport::Verdict::kCompleted;
    return going ? Complete() : Status::OK();
  }

  // Fills the epoch to work on; false when the verdict is already final
  // (refused or dry run).
  Result<bool> ResumeOrPlan() {
    AWC_ASSIGN_OR_RETURN(db::PgResult open,
                         conn_.Exec(sql::kOpenEpoch, {tenant_}));
    if (open.rows() == 1) {
      report_.epoch_id = open.GetInt(0, 0);
      report_.resumed = true;
      opt_.dry_run = open.GetBool(0, 1);
      opt_.grace_secs = open.GetInt(0, 2);
      opt_.batch_size = open.GetInt(0, 3);
      opt_.canary_size = open.GetInt(0, 4);
      canary_verified_ = open.GetBool(0, 5);
      return true;
    }
    std::string grace = S(opt_.grace_secs);
    bool final_verdict = false;
    // Snapshots released or deleted behind the worker's back give their
    // references back first, so their objects can be planned.
    AWC_RETURN_IF_ERROR(db::InTransaction(conn_, [&]() -> Status {
      AWC_RETURN_IF_ERROR(catalog::LockTenantDag(conn_, tenant_));
      return catalog::DropStrayRootRefs(conn_, tenant_).status();
    }));
    // The file entries validations left uncounted get their counts, a few
    // manifests per transaction, so the plan starts from the rows with no
    // references instead of probing every held file.
    for (;;) {
      AWC_ASSIGN_OR_RETURN(
          int64_t counted,
          catalog::CountFileEntries(conn_, tenant_, kCountManifestsPerTxn));
      if (counted < kCountManifestsPerTxn) break;
      AWC_RETURN_IF_ERROR(RenewLock());
    }
    AWC_RETURN_IF_ERROR(db::InTransaction(conn_, [&]() -> Status {
      AWC_ASSIGN_OR_RETURN(db::PgResult old,
                           conn_.Exec(sql::kOldValidating, {tenant_, grace}));
      if (old.rows() > 0) {
        report_.verdict = SweepReport::Verdict::kRefused;
        report_.reason = "snapshot " + old.GetString(0, 0) +
                         " has been VALIDATING for longer than the grace; its "
                         "closure is not known yet";
        AWC_ASSIGN_OR_RETURN(report_.epoch_id,
                             InsertEpoch("REFUSED", report_.reason));
        final_verdict = true;
        return Audit();
      }
      AWC_ASSIGN_OR_RETURN(report_.epoch_id, InsertEpoch("PLANNED", ""));
      AWC_RETURN_IF_ERROR(Plan(grace));
      if (!opt_.dry_run) return Status::OK();
      report_.verdict = SweepReport::Verdict::kDryRun;
      final_verdict = true;
      AWC_RETURN_IF_ERROR(
          conn_.Exec(sql::kCompleteEpoch, {S(report_.epoch_id)}).status());
      return Audit();
    }));
    if (final_verdict) return false;
    AWC_RETURN_IF_ERROR(Hook(hooks_.after_plan));
    return true;
  }

  // Counts the eligible objects and records the oldest batch of them as
  // the epoch's candidates, in deletion order.
  Status Plan(const std::string& grace) {
    EligibleTally tally(
        static_cast<size_t>(std::max<int64_t>(0, opt_.batch_size)));
    AWC_RETURN_IF_ERROR(conn_.ExecEachRow(
        sql::kEligible, {tenant_, grace}, [&](const db::PgResult& row) {
          tally.Offer({row.GetInt(0, 2), row.GetString(0, 0),
                       static_cast<uint64_t>(row.GetInt(0, 1))});
          return Status::OK();
        }));
    std::vector<std::string> digests;
    std::vector<uint64_t> sizes;
    for (EligibleTally::Object& o : tally.TakeOldest()) {
      digests.push_back(std::move(o.digest));
      sizes.push_back(o.size);
    }
    AWC_ASSIGN_OR_RETURN(
        db::PgResult plan,
        conn_.Exec(sql::kRecordPlan,
                   {tenant_, S(report_.epoch_id), db::ArrayLiteral(digests),
                    db::ArrayLiteral(sizes), S(tally.count()),
                    std::to_string(tally.bytes())}));
    report_.planned = plan.GetInt(0, 0);
    report_.planned_bytes = plan.GetInt(0, 1);
    return Status::OK();
  }

  Result<int64_t> InsertEpoch(const char* state, const std::string& reason) {
    AWC_ASSIGN_OR_RETURN(
        db::PgResult r,
        conn_.Exec(
            sql::kInsertEpoch,
            {tenant_, S(opt_.grace_secs), opt_.dry_run ? "true" : "false",
             S(opt_.batch_size), S(opt_.canary_size),
             opt_.job_id ? db::Param(S(opt_.job_id)) : db::Param(), state,
             reason.empty() ? db::Param() : db::Param(reason)}));
    return r.GetInt(0, 0);
  }

  Status DeleteCandidates() {
    AWC_ASSIGN_OR_RETURN(db::PgResult n,
                         conn_.Exec(sql::kLastSeq, {S(report_.epoch_id)}));
    int64_t last = n.GetInt(0, 0);
    int64_t canary = std::min(opt_.canary_size, last);
    int64_t lo = 1;
    while (lo <= last) {
      int64_t hi =
          lo == 1 && canary > 0 ? canary : std::min(last, lo + kMaxBatch - 1);
      AWC_ASSIGN_OR_RETURN(bool held, RunBatch(lo, hi));
      if (held) return StopHeld(hi);
      if (hi == canary && !canary_verified_) {
        AWC_ASSIGN_OR_RETURN(bool clean, VerifyCanary());
        if (!clean) return Status::OK();
      }
      lo = hi + 1;
      if (checkpoint_) AWC_RETURN_IF_ERROR(checkpoint_());
    }
    return Status::OK();
  }

  // A validation holds the marking (RunBatch): what earlier attempts marked
  // after `after` is deleted all the same (a validation that meets it waits
  // for GC), nothing more is marked, and the epoch ends REFUSED: left open,
  // it would hold back a validation whose commit refuses what an epoch
  // since its GC watermark deleted (docs/gc.md, "The plan").
  Status StopHeld(int64_t after) {
    std::string epoch = S(report_.epoch_id);
    for (;;) {
      AWC_ASSIGN_OR_RETURN(db::PgResult next, conn_.Exec(sql::kNextDeletingSeq,
                                                         {epoch, S(after)}));
      if (next.IsNull(0, 0)) break;
      int64_t lo = next.GetInt(0, 0);
      int64_t hi = lo + kMaxBatch - 1;
      AWC_RETURN_IF_ERROR(DeleteMarked(lo, hi, 0, /*held=*/true));
      after = hi;
      if (checkpoint_) AWC_RETURN_IF_ERROR(checkpoint_());
    }
    // What was deleted is checked as a canary batch would have been.
    if (!canary_verified_) {
      AWC_ASSIGN_OR_RETURN(bool clean, VerifyCanary());
      if (!clean) return Status::OK();
    }
    report_.verdict = SweepReport::Verdict::kRefused;
    report_.reason = held_by_;
    return EndEarly("REFUSED");
  }

  // Ends the epoch as `state` (ABORTED, REFUSED) for report_'s reason,
  // keeping the rest; proves the lock is ours and audits, as Complete().
  Status EndEarly(const char* state) {
    return db::InTransaction(conn_, [&]() -> Status {
      AWC_RETURN_IF_ERROR(RenewLock());
      db::Params end = {S(report_.epoch_id), report_.reason, state};
      AWC_RETURN_IF_ERROR(conn_.Exec(sql::kEndEpochEarly, end).status());
      AWC_RETURN_IF_ERROR(LoadCounts());
      return Audit();
    });
  }

  // True when a VALIDATING snapshot that aged past the grace since planning
  // held the marking: then the batch marked nothing, and only what an
  // earlier attempt marked in it was deleted.
  Result<bool> RunBatch(int64_t lo, int64_t hi) {
    std::string epoch = S(report_.epoch_id);
    int64_t kept = 0;
    bool held = false;
    AWC_RETURN_IF_ERROR(db::InTransaction(conn_, [&]() -> Status {
      AWC_RETURN_IF_ERROR(RenewLock());
      // No reference changes while the batch is re-checked and marked
      // (docs/gc.md, "GC safety", step 3).
      AWC_RETURN_IF_ERROR(catalog::LockTenantDag(conn_, tenant_));
      // A VALIDATING snapshot that aged past the grace since planning makes
      // every old object suspect: mark no more, keep the rest. What an
      // earlier attempt already marked is still deleted below: a validation
      // that meets one of those objects waits for GC, so GC must not wait
      // for it.
      AWC_ASSIGN_OR_RETURN(
          db::PgResult old,
          conn_.Exec(sql::kOldValidating, {tenant_, S(opt_.grace_secs)}));
      if (old.rows() > 0) {
        held = true;
        held_by_ = "snapshot " + old.GetString(0, 0) +
                   " has been VALIDATING for longer than the grace; the "
                   "epoch stopped before marking more";
        return Status::OK();
      }
      AWC_ASSIGN_OR_RETURN(
          db::PgResult marked,
          conn_.Exec(sql::kMarkBatch,
                     {tenant_, S(opt_.grace_secs), epoch, S(lo), S(hi)}));
      for (int i = 0; i < marked.rows(); ++i) {
        kept += marked.Get(i, 0) == "KEPT" ? 1 : 0;
      }
      return Status::OK();
    }));
    AWC_RETURN_IF_ERROR(Hook(hooks_.after_mark));
    AWC_RETURN_IF_ERROR(DeleteMarked(lo, hi, kept, held));
    return held;
  }

  // Deletes the batch's DELETING candidates from the store and their rows,
  // and adds the counts (with `kept`). Read, store delete and row removal
  // are one transaction that holds the lock row from RenewLock on: while
  // this sweeper is anywhere between reading its batch and removing its
  // rows, however long it stalls, no other sweeper can take the lock over,
  // finish the batch and let a producer upload one of these objects again,
  // which a late delete would then remove (docs/gc.md, "GC safety", step
  // 5). `held`: the marking is held, and a batch with nothing to delete
  // ends at once (a PLANNED epoch is not moved to DELETING for nothing).
  Status DeleteMarked(int64_t lo, int64_t hi, int64_t kept, bool held) {
    std::string epoch = S(report_.epoch_id);
    int64_t count = 0;
    int64_t bytes = 0;
    AWC_RETURN_IF_ERROR(db::InTransaction(conn_, [&]() -> Status {
      AWC_RETURN_IF_ERROR(conn_.Exec(sql::kNoIdleTimeout).status());
      AWC_RETURN_IF_ERROR(RenewLock());
      AWC_ASSIGN_OR_RETURN(
          db::PgResult doomed,
          conn_.Exec(sql::kDeletingInBatch, {epoch, S(lo), S(hi)}));
      if (doomed.rows() == 0 && held) return Status::OK();
      AWC_RETURN_IF_ERROR(Hook(hooks_.before_store_delete));
      std::vector<store::ObjectKey> keys;
      for (int i = 0; i < doomed.rows(); ++i) {
        keys.push_back({tenant_, doomed.GetString(i, 0)});
      }
      if (!keys.empty()) {
        AWC_ASSIGN_OR_RETURN(std::vector<Status> results,
                             store_.DeleteMany(keys));
        for (const Status& r : results) {
          if (!r.ok()) return r.WithContext("deleting from the store");
        }
      }
      AWC_RETURN_IF_ERROR(Hook(hooks_.after_store_delete));
      AWC_ASSIGN_OR_RETURN(
          db::PgResult done,
          conn_.Exec(sql::kFinishBatch, {tenant_, epoch, S(lo), S(hi)}));
      count = done.GetInt(0, 0);
      bytes = done.GetInt(0, 1);
      return conn_.Exec(sql::kAddCounts, {epoch, S(count), S(bytes), S(kept)})
          .status();
    }));
    report_.deleted += count;
    report_.deleted_bytes += bytes;
    if (hooks_.deleted) hooks_.deleted(count, bytes);
    return Status::OK();
  }

  // True when no deleted digest turned out to be live; otherwise the epoch
  // is aborted and recorded as such. A digest live now that was uploaded
  // again since its deletion (a LIVE row, and the object in the store) is
  // not one: a producer may do that as soon as the row is gone.
  Result<bool> VerifyCanary() {
    AWC_RETURN_IF_ERROR(Hook(hooks_.before_canary_check));
    std::string epoch = S(report_.epoch_id);
    AWC_ASSIGN_OR_RETURN(db::PgResult live,
                         conn_.Exec(sql::kCanaryLiveNow, {tenant_, epoch}));
    std::string digest;
    for (int i = 0; i < live.rows() && digest.empty(); ++i) {
      bool uploaded_again = live.GetBool(i, 1);
      if (uploaded_again) {
        Result<uint64_t> head =
            store_.Head(store::ObjectKey{tenant_, live.GetString(i, 0)});
        if (head.ok()) continue;
        if (!head.status().IsNotFound()) {
          return head.status().WithContext("canary");
        }
      }
      digest = live.GetString(i, 0);
    }
    if (digest.empty()) {
      AWC_RETURN_IF_ERROR(conn_.Exec(sql::kCanaryVerified, {epoch}).status());
      canary_verified_ = true;
      return true;
    }
    report_.verdict = SweepReport::Verdict::kAborted;
    report_.reason = "canary: deleted object " + digest +
                     " is referenced by a live snapshot or pin";
    obs::Error("gc", "GC canary found a live object; epoch aborted")
        .Str("tenant", tenant_)
        .Int("epoch", report_.epoch_id)
        .Str("digest", digest)
        .Emit();
    AWC_RETURN_IF_ERROR(EndEarly("ABORTED"));
    return false;
  }

  Status LoadCounts() {
    AWC_ASSIGN_OR_RETURN(db::PgResult c,
                         conn_.Exec(sql::kEpochCounts, {S(report_.epoch_id)}));
    report_.planned = c.GetInt(0, 0);
    report_.planned_bytes = c.GetInt(0, 1);
    report_.deleted = c.GetInt(0, 2);
    report_.deleted_bytes = c.GetInt(0, 3);
    report_.kept = c.GetInt(0, 4);
    return Status::OK();
  }

  // Like a batch, completing proves the lock is still ours: a sweeper that
  // stalled until another one took the lock over, finished the epoch and
  // let the lock go must not complete (and audit) that epoch again.
  Status Complete() {
    return db::InTransaction(conn_, [&]() -> Status {
      AWC_RETURN_IF_ERROR(RenewLock());
      AWC_ASSIGN_OR_RETURN(
          db::PgResult done,
          conn_.Exec(sql::kCompleteEpoch, {S(report_.epoch_id)}));
      if (done.rows() == 0) {
        return Status::Transient("GC epoch " + S(report_.epoch_id) +
                                 " was finished by another sweeper");
      }
      AWC_RETURN_IF_ERROR(LoadCounts());
      return Audit();
    });
  }

  Status Audit() {
    JsonObject data;
    data.Int("epoch_id", report_.epoch_id)
        .Str("verdict", VerdictName(report_.verdict))
        .Bool("dry_run", opt_.dry_run)
        .Bool("resumed", report_.resumed)
        .Int("planned", report_.planned)
        .Int("planned_bytes", report_.planned_bytes)
        .Int("deleted", report_.deleted)
        .Int("deleted_bytes", report_.deleted_bytes)
        .Int("kept", report_.kept);
    if (!report_.reason.empty()) data.Str("reason", report_.reason);
    return catalog::RecordAudit(conn_, tenant_, "gc.epoch",
                                "gc_epoch/" + S(report_.epoch_id), data.Dump());
  }

  db::PgConn& conn_;
  store::ObjectStore& store_;
  std::string tenant_;
  SweepOptions opt_;
  const std::function<Status()>& checkpoint_;
  const SweepHooks& hooks_;
  SweepReport report_;
  bool canary_verified_ = false;
  // Why the marking is held (RunBatch), the reason of the REFUSED epoch.
  std::string held_by_;
};

}  // namespace

const char* VerdictName(SweepReport::Verdict verdict) {
  switch (verdict) {
    case SweepReport::Verdict::kCompleted:
      return "completed";
    case SweepReport::Verdict::kDryRun:
      return "dry_run";
    case SweepReport::Verdict::kAborted:
      return "aborted";
    case SweepReport::Verdict::kRefused:
      return "refused";
    case SweepReport::Verdict::kLockedOut:
      return "locked_out";
  }
  return "unknown";
}

Result<SweepReport> RunSweep(db::PgConn& conn, store::ObjectStore& store,
                             const std::string& tenant_id,
                             const SweepOptions& options,
                             const std::function<Status()>& checkpoint,
                             const DeletedFn& deleted) {
  SweepHooks hooks;
  hooks.deleted = deleted;
  return RunSweepWithHooks(conn, store, tenant_id, options, checkpoint, hooks);
}

Result<SweepReport> RunSweepWithHooks(db::PgConn& conn,
                                      store::ObjectStore& store,
                                      const std::string& tenant_id,
                                      const SweepOptions& options,
                                      const std::function<Status()>& checkpoint,
                                      const SweepHooks& hooks) {
  AWC_ASSIGN_OR_RETURN(db::PgResult t,
                       conn.Exec(sql::kTenantExists, {tenant_id}));
  if (t.rows() == 0) {
    return Status::NotFound("tenant " + tenant_id + " does not exist");
  }
  Sweep sweep(conn, store, tenant_id, options, checkpoint, hooks);
  return sweep.Run();
}

}  // namespace awc::gc
