// The states of snapshots, workspaces and inventory objects, as C++ enums.
//
// The database stores them as text (migrations/0002_content_store.sql
// constrains each column to its values) and the SQL of catalog_sql.h names
// them as literals; everything in C++ reads and compares the enums. Each
// enum's table lists its states in the order listings show them; names and
// parsing come from it. Parsing text outside the set is an InvalidArgument
// naming the text, so a state a newer schema added is an error, not a
// silent mismatch.
#ifndef AWC_CATALOG_STATES_H_
#define AWC_CATALOG_STATES_H_

#include <string_view>

#include "common/status.h"

namespace awc::catalog {

// awc.snapshots.state (docs/data-model.md, "Data model and producer
// contract").
enum class SnapshotState {
  kValidating,  // inserted by a producer; its closure is not known yet
  kReady,       // validated; closure recorded in awc.snapshot_objects
  kFailed,      // validation found a problem (snapshots.failure says which)
  kDegraded,    // a scrub found decay; its closure is pinned
  kReleased,    // retention or expiry let it go; its objects may be collected
};

struct SnapshotStateRow {
  SnapshotState value;
  const char* name;  // the SQL literal
};
inline constexpr SnapshotStateRow kSnapshotStates[] = {
    {SnapshotState::kValidating, "VALIDATING"},
    {SnapshotState::kReady, "READY"},
    {SnapshotState::kFailed, "FAILED"},
    {SnapshotState::kDegraded, "DEGRADED"},
    {SnapshotState::kReleased, "RELEASED"},
};

Result<SnapshotState> ParseSnapshotState(std::string_view text);
const char* SnapshotStateName(SnapshotState state);  // "VALIDATING", ...

// awc.workspaces.state: the TTL state machine of workspace_expire.
enum class WorkspaceState {
  kActive,
  kExpiring,  // expires_at has passed; reversible during the grace
  kExpired,   // final; its snapshots are released
};

struct WorkspaceStateRow {
  WorkspaceState value;
  const char* name;
};
inline constexpr WorkspaceStateRow kWorkspaceStates[] = {
    {WorkspaceState::kActive, "ACTIVE"},
    {WorkspaceState::kExpiring, "EXPIRING"},
    {WorkspaceState::kExpired, "EXPIRED"},
};

Result<WorkspaceState> ParseWorkspaceState(std::string_view text);
const char* WorkspaceStateName(WorkspaceState state);  // "ACTIVE", ...

// awc.objects.state: the inventory protocol between producers and GC.
enum class ObjectState {
  kLive,      // in the store; producers may deduplicate against it
  kDeleting,  // GC is deleting it; producers treat it as absent
};

struct ObjectStateRow {
  ObjectState value;
  const char* name;
};
inline constexpr ObjectStateRow kObjectStates[] = {
    {ObjectState::kLive, "LIVE"},
    {ObjectState::kDeleting, "DELETING"},
};

Result<ObjectState> ParseObjectState(std::string_view text);
const char* ObjectStateName(ObjectState state);  // "LIVE", "DELETING"

}  // namespace awc::catalog

#endif  // AWC_CATALOG_STATES_H_
