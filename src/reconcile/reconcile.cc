#include "reconcile/reconcile.h"

#include <algorithm>
#include <cstdlib>
#include <deque>
#include <optional>
#include <utility>

#include "catalog/audit.h"
#include "catalog/dag.h"
#include "catalog/objects.h"
#include "catalog/snapshots.h"
#include "common/json.h"
#include "common/percent_encode.h"
#include "reconcile/reconcile_sql.h"

namespace awc::reconcile {
namespace {

// The keys that are not objects' named in the result and the audit event.
constexpr size_t kMaxExamples = 10;
// Suspects settled in one transaction at most (a Head each, asked all at
// once, under the tenant's DAG lock).
constexpr size_t kMaxSuspects = 100;

std::string S(int64_t v) { return std::to_string(v); }

// The inventory in digest order, read a page at a time.
class InventoryCursor {
 public:
  struct Row {
    std::string digest;
    uint64_t size = 0;
    bool live = false;
    bool judged = false;  // created before the run began
  };

  InventoryCursor(db::PgConn& conn, std::string tenant, std::string after,
                  int64_t started_us, int64_t page)
      : conn_(conn),
        tenant_(std::move(tenant)),
        after_(std::move(after)),
        started_us_(started_us),
        page_(page) {}

  // The next row, without taking it; nullptr at the end.
  Result<const Row*> Peek() {
    if (rows_.empty() && !done_) AWC_RETURN_IF_ERROR(Fill());
    return rows_.empty() ? nullptr : &rows_.front();
  }
  void Pop() { rows_.pop_front(); }

 private:
  Status Fill() {
    AWC_ASSIGN_OR_RETURN(
        db::PgResult r,
        conn_.ExecCached(sql::kInventoryPage,
                         {tenant_, after_, S(started_us_), S(page_)}));
    for (int i = 0; i < r.rows(); ++i) {
      rows_.push_back({r.GetString(i, 0), static_cast<uint64_t>(r.GetInt(i, 1)),
                       r.GetBool(i, 2), r.GetBool(i, 3)});
    }
    if (r.rows() < page_) done_ = true;
    if (!rows_.empty()) after_ = rows_.back().digest;
    return Status::OK();
  }

  db::PgConn& conn_;
  const std::string tenant_;
  std::string after_;
  const int64_t started_us_;
  const int64_t page_;
  std::deque<Row> rows_;
  bool done_ = false;
};

class Run {
 public:
  Run(db::PgConn& conn, store::ObjectStore& store, std::string tenant,
      const ReconcileOptions& options,
      const std::function<Status()>& checkpoint, const RepairFn& repair,
      const std::function<void(const ReconcileReport&)>& committed)
      : conn_(conn),
        store_(store),
        tenant_(std::move(tenant)),
        opt_(options),
        checkpoint_(checkpoint),
        repair_(repair),
        committed_(committed) {}

  Result<ReconcileReport> Go() {
    AWC_ASSIGN_OR_RETURN(db::PgResult t,
                         conn_.Exec(sql::kTenantExists, {tenant_}));
    if (t.rows() == 0) return Status::NotFound("tenant " + tenant_);
    AWC_RETURN_IF_ERROR(Take());
    if (report_.held_elsewhere) return report_;
    AWC_ASSIGN_OR_RETURN(catalog::ReadMark mark,
                         catalog::GcWatermark(conn_, tenant_));
    gc_watermark_ = mark.gc_epoch;
    inventory_.emplace(conn_, tenant_, cursor_, started_us_, opt_.page);
    Status listed = store_.List(tenant_, cursor_,
                                [this](const auto& key) { return OnKey(key); });
    AWC_RETURN_IF_ERROR(listed);
    // What the inventory holds past the last key listed.
    for (;;) {
      AWC_ASSIGN_OR_RETURN(const InventoryCursor::Row* row, inventory_->Peek());
      if (row == nullptr) break;
      Suspect(*row);
      pending_cursor_ = row->digest;
      inventory_->Pop();
      if (suspects_.size() >= kMaxSuspects) AWC_RETURN_IF_ERROR(Flush(false));
    }
    AWC_RETURN_IF_ERROR(Flush(true));
    return report_;
  }

 private:
  // The run: taken over, opened, or held by someone else.
  Status Take() {
    AWC_ASSIGN_OR_RETURN(
        db::PgResult r,
        conn_.Exec(sql::kTakeRun,
                   {tenant_, opt_.holder, std::to_string(opt_.lease_secs),
                    opt_.job_id ? db::Param(S(opt_.job_id)) : db::Param()}));
    if (r.rows() == 0) {
      report_.held_elsewhere = true;
      AWC_ASSIGN_OR_RETURN(db::PgResult h,
                           conn_.Exec(sql::kRunHolder, {tenant_}));
      report_.holder = h.rows() > 0 ? h.GetString(0, 0) : "?";
      return Status::OK();
    }
    report_.run_id = r.GetInt(0, 0);
    cursor_ = r.GetString(0, 1);
    pending_cursor_ = cursor_;
    started_us_ = r.GetInt(0, 2);
    report_.resumed = r.GetBool(0, 3);
    now_secs_ = r.GetDouble(0, 4);
    int64_t* counts[] = {&report_.listed,       &report_.objects,
                         &report_.other_keys,   &report_.orphans,
                         &report_.orphan_bytes, &report_.young_orphans,
                         &report_.missing,      &report_.wrong_size,
                         &report_.repaired,     &report_.degraded};
    for (int i = 0; i < 10; ++i) *counts[i] = r.GetInt(0, 5 + i);
    Result<JsonPtr> examples = ParseJson(r.GetString(0, 15));
    if (examples.ok() && json_is_array(examples->get())) {
      for (size_t i = 0; i < json_array_size(examples->get()); ++i) {
        const char* v = json_string_value(json_array_get(examples->get(), i));
        if (v != nullptr) report_.other_examples.push_back(v);
      }
    }
    return Status::OK();
  }

  Status OnKey(const store::ObjectStore::ListedKey& key) {
    ++report_.listed;
    listed_bytes_ += static_cast<int64_t>(key.size);
    if (key.digest.empty()) {
      ++report_.other_keys;
      if (report_.other_examples.size() < kMaxExamples) {
        // Any bytes may name a key: shown percent-encoded.
        report_.other_examples.push_back(PercentEncode(key.name, true));
      }
      return MaybeFlush();
    }
    ++report_.objects;
    // Inventory rows before this key: the listing did not show them.
    for (;;) {
      AWC_ASSIGN_OR_RETURN(const InventoryCursor::Row* row, inventory_->Peek());
      if (row == nullptr || row->digest > key.digest) {
        Orphan(key);
        break;
      }
      if (row->digest == key.digest) {
        if (row->size != key.size) Suspect(*row);
        inventory_->Pop();
        break;
      }
      Suspect(*row);
      inventory_->Pop();
    }
    pending_cursor_ = key.digest;
    return MaybeFlush();
  }

  void Orphan(const store::ObjectStore::ListedKey& key) {
    if (static_cast<double>(key.modified) >=
        now_secs_ - static_cast<double>(opt_.grace_secs)) {
      ++report_.young_orphans;
      return;
    }
    orphan_digests_.push_back(key.digest);
    orphan_sizes_.push_back(key.size);
    orphan_times_.push_back(
        static_cast<uint64_t>(std::max<int64_t>(key.modified, 0)));
  }

  // A row the listing did not show, or showed with another size: a suspect
  // when it is LIVE and older than the run (the store is asked again under
  // the lock before anything is concluded).
  void Suspect(const InventoryCursor::Row& row) {
    if (row.live && row.judged) suspects_.push_back({row.digest, row.size});
  }

  Status MaybeFlush() {
    if (++since_flush_ >= opt_.flush_every ||
        orphan_digests_.size() >= static_cast<size_t>(opt_.flush_every) ||
        suspects_.size() >= kMaxSuspects) {
      return Flush(false);
    }
    return Status::OK();
  }

  // Records what was found since the last flush, in one transaction, and
  // moves the cursor to what has been merged; `last` closes the run.
  Status Flush(bool last) {
    since_flush_ = 0;
    // The suspects' reads, paced before any lock is taken.
    if (opt_.pace && !suspects_.empty()) {
      uint64_t bytes = 0;
      for (const BadObject& b : suspects_) bytes += b.size;
      AWC_RETURN_IF_ERROR(opt_.pace(bytes, suspects_.size()));
    }
    ReconcileReport before = report_;
    ReconcileReport added;
    Status s = db::InTransaction(conn_, [&]() -> Status {
      report_ = before;
      added = ReconcileReport{};
      // The DAG lock before any row lock, as everywhere.
      if (!suspects_.empty()) {
        AWC_RETURN_IF_ERROR(catalog::LockTenantDag(conn_, tenant_));
        AWC_RETURN_IF_ERROR(SettleSuspects(&added));
      }
      if (!orphan_digests_.empty()) AWC_RETURN_IF_ERROR(Register(&added));
      AWC_RETURN_IF_ERROR(SaveProgress());
      if (last) {
        AWC_ASSIGN_OR_RETURN(
            db::PgResult done,
            conn_.Exec(sql::kFinishRun, {S(report_.run_id), opt_.holder}));
        if (done.rows() == 0) return LostRun();
        AWC_RETURN_IF_ERROR(Audit());
      }
      return Status::OK();
    });
    if (!s.ok()) {
      report_ = before;
      return s;
    }
    cursor_ = pending_cursor_;
    suspects_.clear();
    orphan_digests_.clear();
    orphan_sizes_.clear();
    orphan_times_.clear();
    if (committed_) committed_(added);
    if (opt_.progress) opt_.progress(report_.listed, listed_bytes_);
    if (checkpoint_ && !last) AWC_RETURN_IF_ERROR(checkpoint_());
    return Status::OK();
  }

  Status Register(ReconcileReport* added) {
    AWC_ASSIGN_OR_RETURN(
        db::PgResult r,
        conn_.Exec(sql::kRegisterOrphans,
                   {tenant_, db::ArrayLiteral(orphan_digests_),
                    db::ArrayLiteral(orphan_sizes_),
                    db::ArrayLiteral(orphan_times_), S(gc_watermark_)}));
    for (int i = 0; i < r.rows(); ++i) {
      ++added->orphans;
      added->orphan_bytes += r.GetInt(i, 1);
    }
    report_.orphans += added->orphans;
    report_.orphan_bytes += added->orphan_bytes;
    return Status::OK();
  }

  // Under the DAG lock: the suspects' rows locked against GC's mark, the
  // store asked again; what is absent or of another size is bad, repaired
  // or degraded.
  Status SettleSuspects(ReconcileReport* added) {
    std::vector<std::string> digests;
    for (const BadObject& b : suspects_) digests.push_back(b.digest);
    AWC_ASSIGN_OR_RETURN(
        db::PgResult rows,
        conn_.Exec(sql::kLockSuspects,
                   {tenant_, db::ArrayLiteral(digests), S(started_us_)}));
    // The store asked about all of them at once (S3: concurrently).
    std::vector<BadObject> locked;
    std::vector<Result<uint64_t>> sizes;
    std::vector<store::ObjectStore::HeadRequest> heads;
    for (int i = 0; i < rows.rows(); ++i) {
      locked.push_back(
          {rows.GetString(i, 0), static_cast<uint64_t>(rows.GetInt(i, 1))});
      sizes.emplace_back(Status::Internal("not asked"));
    }
    for (size_t i = 0; i < locked.size(); ++i) {
      heads.push_back(
          {store::ObjectKey{tenant_, locked[i].digest},
           [&sizes, i](Result<uint64_t> r) { sizes[i] = std::move(r); }});
    }
    store_.HeadMany(heads);
    std::vector<std::string> bad;
    for (size_t i = 0; i < locked.size(); ++i) {
      const BadObject& b = locked[i];
      const Result<uint64_t>& size = sizes[i];
      if (size.ok() && *size == b.size) continue;  // there after all
      // kCorruption: something that is not an object holds the key (a
      // directory, a link), so the object is missing as surely as with
      // nothing there. Any other error says nothing about the object.
      if (!size.ok() && !size.status().IsNotFound() &&
          !size.status().IsCorruption()) {
        return size.status();
      }
      ++(size.ok() ? added->wrong_size : added->missing);
      if (repair_) {
        AWC_ASSIGN_OR_RETURN(bool repaired, repair_(b));
        if (repaired) {
          ++added->repaired;
          continue;
        }
      }
      bad.push_back(b.digest);
    }
    if (!bad.empty()) {
      AWC_ASSIGN_OR_RETURN(
          std::vector<int64_t> degraded,
          catalog::DegradeReaching(
              conn_, tenant_, bad,
              catalog::DamageFinder{.snapshot = {},
                                    .reconcile_run = report_.run_id}));
      added->degraded = static_cast<int64_t>(degraded.size());
    }
    report_.missing += added->missing;
    report_.wrong_size += added->wrong_size;
    report_.repaired += added->repaired;
    report_.degraded += added->degraded;
    return Status::OK();
  }

  Status SaveProgress() {
    AWC_ASSIGN_OR_RETURN(
        db::PgResult r,
        conn_.Exec(
            sql::kSaveProgress,
            {S(report_.run_id), opt_.holder, std::to_string(opt_.lease_secs),
             pending_cursor_, S(report_.listed), S(report_.objects),
             S(report_.other_keys), S(report_.orphans), S(report_.orphan_bytes),
             S(report_.young_orphans), S(report_.missing),
             S(report_.wrong_size), S(report_.repaired), S(report_.degraded),
             ExamplesJson()}));
    if (r.rows() == 0) return LostRun();
    return Status::OK();
  }

  Status LostRun() const {
    return Status::Transient("reconciliation run " + S(report_.run_id) +
                             " of tenant " + tenant_ +
                             " was taken over by another job");
  }

  std::string ExamplesJson() const {
    JsonPtr list(json_array());
    for (const std::string& name : report_.other_examples) {
      json_array_append_new(list.get(), json_string(name.c_str()));
    }
    char* text = json_dumps(list.get(), JSON_COMPACT);
    std::string out = text != nullptr ? text : "[]";
    free(text);
    return out;
  }

  Status Audit() {
    return catalog::RecordAudit(conn_, tenant_, "store.reconcile",
                                "tenant/" + tenant_, ReportJson(report_));
  }

  db::PgConn& conn_;
  store::ObjectStore& store_;
  const std::string tenant_;
  const ReconcileOptions& opt_;
  const std::function<Status()>& checkpoint_;
  const RepairFn& repair_;
  const std::function<void(const ReconcileReport&)>& committed_;

  ReconcileReport report_;
  std::string cursor_;          // merged and recorded up to here
  std::string pending_cursor_;  // merged up to here, recorded at the flush
  int64_t started_us_ = 0;
  double now_secs_ = 0;  // the database's clock when the job took the run
  int64_t gc_watermark_ = 0;
  std::optional<InventoryCursor> inventory_;
  int64_t since_flush_ = 0;
  int64_t listed_bytes_ = 0;  // by this job (a resumed run's before: not)
  std::vector<BadObject> suspects_;
  std::vector<std::string> orphan_digests_;
  std::vector<uint64_t> orphan_sizes_;
  std::vector<uint64_t> orphan_times_;  // the store's, seconds since the epoch
};

}  // namespace

std::string ReportJson(const ReconcileReport& r) {
  JsonObject j;
  j.Int("run_id", r.run_id)
      .Bool("resumed", r.resumed)
      .Int("listed", r.listed)
      .Int("objects", r.objects)
      .Int("orphans", r.orphans)
      .Int("orphan_bytes", r.orphan_bytes)
      .Int("young_orphans", r.young_orphans)
      .Int("missing", r.missing)
      .Int("wrong_size", r.wrong_size)
      .Int("repaired", r.repaired)
      .Int("degraded", r.degraded)
      .Int("other_keys", r.other_keys)
      .Strs("other_examples", r.other_examples);
  return j.Dump();
}

Result<ReconcileReport> RunReconcile(
    db::PgConn& conn, store::ObjectStore& store, const std::string& tenant,
    const ReconcileOptions& options, const std::function<Status()>& checkpoint,
    const RepairFn& repair,
    const std::function<void(const ReconcileReport& added)>& committed) {
  return Run(conn, store, tenant, options, checkpoint, repair, committed).Go();
}

}  // namespace awc::reconcile
