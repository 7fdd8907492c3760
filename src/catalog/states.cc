#include "catalog/states.h"

#include <string>

namespace awc::catalog {
namespace {

Status Unknown(const char* what, std::string_view text) {
  return Status::InvalidArgument("unknown " + std::string(what) + " state \"" +
                                 std::string(text) + "\"");
}

}  // namespace

Result<SnapshotState> ParseSnapshotState(std::string_view text) {
  if (text == "VALIDATING") return SnapshotState::kValidating;
  if (text == "READY") return SnapshotState::kReady;
  if (text == "FAILED") return SnapshotState::kFailed;
  if (text == "DEGRADED") return SnapshotState::kDegraded;
  if (text == "RELEASED") return SnapshotState::kReleased;
  return Unknown("snapshot", text);
}

const char* SnapshotStateName(SnapshotState state) {
  switch (state) {
    case SnapshotState::kValidating:
      return "VALIDATING";
    case SnapshotState::kReady:
      return "READY";
    case SnapshotState::kFailed:
      return "FAILED";
    case SnapshotState::kDegraded:
      return "DEGRADED";
    case SnapshotState::kReleased:
      return "RELEASED";
  }
  return "?";
}

Result<WorkspaceState> ParseWorkspaceState(std::string_view text) {
  if (text == "ACTIVE") return WorkspaceState::kActive;
  if (text == "EXPIRING") return WorkspaceState::kExpiring;
  if (text == "EXPIRED") return WorkspaceState::kExpired;
  return Unknown("workspace", text);
}

const char* WorkspaceStateName(WorkspaceState state) {
  switch (state) {
    case WorkspaceState::kActive:
      return "ACTIVE";
    case WorkspaceState::kExpiring:
      return "EXPIRING";
    case WorkspaceState::kExpired:
      return "EXPIRED";
  }
  return "?";
}

Result<ObjectState> ParseObjectState(std::string_view text) {
  if (text == "LIVE") return ObjectState::kLive;
  if (text == "DELETING") return ObjectState::kDeleting;
  return Unknown("object", text);
}

const char* ObjectStateName(ObjectState state) {
  switch (state) {
    case ObjectState::kLive:
      return "LIVE";
    case ObjectState::kDeleting:
      return "DELETING";
  }
  return "?";
}

}  // namespace awc::catalog
