#include "handlers/snapshot_retain.h"

#include <optional>
#include <string>

#include "catalog/snapshots.h"
#include "catalog/states.h"
#include "common/json.h"
#include "db/pg.h"
#include "handlers/outcomes.h"

namespace awc::handlers {
namespace {

struct Policy {
  std::optional<int64_t> keep_last;
  std::optional<int64_t> keep_within_secs;
};

// {"keep_last": N, "keep_within_secs": S}: each key optional, each a
// positive integer, at least one of them. A rule of 0, or no rule, would
// keep nothing and release the workspace's snapshots at once: that is
// taken for a mistake, and anything else is malformed too (and a malformed
// policy keeps everything).
Result<Policy> ParsePolicy(const std::string& json) {
  AWC_ASSIGN_OR_RETURN(JsonPtr doc, ParseJson(json));
  PayloadReader r(doc.get());
  // A rule this build does not know (a later release's) could keep what the
  // known ones release: the policy is malformed here, and keeps everything.
  AWC_RETURN_IF_ERROR(r.ExpectObject({"keep_last", "keep_within_secs"},
                                     PayloadReader::OtherKeys::kRefused));
  Policy p;
  if (json_object_get(doc.get(), "keep_last") != nullptr) {
    AWC_ASSIGN_OR_RETURN(p.keep_last, r.Int("keep_last", 1));
  }
  if (json_object_get(doc.get(), "keep_within_secs") != nullptr) {
    AWC_ASSIGN_OR_RETURN(p.keep_within_secs, r.Int("keep_within_secs", 1));
  }
  if (!p.keep_last && !p.keep_within_secs) {
    return Status::InvalidArgument("a retention policy needs a rule");
  }
  return p;
}

// Why a READY snapshot is kept, or "" when it is to be released (with
// `release_reason` set).
std::string KeepReason(const catalog::Snapshot& snap,
                       const catalog::RetentionFacts& facts,
                       std::string* release_reason) {
  if (facts.workspace_state == catalog::WorkspaceState::kExpired) {
    *release_reason = "workspace_expired";
    return "";
  }
  if (snap.pinned) return "pinned";
  if (!snap.workspace_id || !facts.workspace_state) return "no_workspace";
  if (!facts.retention || *facts.retention == "null") return "no_policy";
  Result<Policy> policy = ParsePolicy(*facts.retention);
  if (!policy.ok()) return "malformed_policy";
  if (policy->keep_last && facts.rank <= *policy->keep_last) return "keep_last";
  if (policy->keep_within_secs &&
      snap.age_secs < static_cast<double>(*policy->keep_within_secs)) {
    return "keep_within_secs";
  }
  *release_reason = "retention_policy";
  return "";
}

}  // namespace

queue::Outcome RetainSnapshot(JobContext& ctx, const SnapshotPayload& p) {
  auto subject = LoadSnapshotIn(
      ctx, p.snapshot_id,
      {catalog::SnapshotState::kReady, catalog::SnapshotState::kDegraded});
  if (auto* done = std::get_if<queue::Outcome>(&subject)) return *done;
  const catalog::Snapshot& snap = std::get<catalog::Snapshot>(subject);
  JsonObject result;
  if (snap.state == catalog::SnapshotState::kDegraded) {
    result.Str("verdict", "kept").Str("reason", "degraded");
    return queue::Outcome::Complete(result.Dump());
  }
  std::string keep, release;
  bool released = false;
  Status s = db::InTransaction(ctx.db(), [&]() -> Status {
    AWC_ASSIGN_OR_RETURN(catalog::RetentionFacts facts,
                         catalog::LoadRetentionFacts(ctx.db(), snap));
    keep = KeepReason(snap, facts, &release);
    if (!keep.empty()) return Status::OK();
    AWC_ASSIGN_OR_RETURN(
        released, catalog::ReleaseSnapshot(ctx.db(), snap, release,
                                           release == "workspace_expired"));
    return Status::OK();
  });
  if (!s.ok()) return RetryOn(s);
  if (!keep.empty()) {
    result.Str("verdict", "kept").Str("reason", keep);
  } else if (released) {
    DropReleasedRefs(ctx, snap.tenant_id);
    result.Str("verdict", "released").Str("reason", release);
  } else {
    return Skipped("changed during retention");
  }
  return queue::Outcome::Complete(result.Dump());
}

}  // namespace awc::handlers
