#include "catalog/states.h"

#include <string>

#include "common/enum_table.h"

namespace awc::catalog {
namespace {

template <typename Row, size_t N>
Result<decltype(Row::value)> Parse(const Row (&rows)[N], const char* what,
                                   std::string_view text) {
  if (const Row* row = FindRowNamed(rows, text)) return row->value;
  return Status::InvalidArgument("unknown " + std::string(what) + " state \"" +
                                 std::string(text) + "\"");
}

template <typename Row, size_t N, typename E>
const char* Name(const Row (&rows)[N], E value) {
  const Row* row = FindRow(rows, value);
  return row != nullptr ? row->name : "?";
}

}  // namespace

Result<SnapshotState> ParseSnapshotState(std::string_view text) {
  return Parse(kSnapshotStates, "snapshot", text);
}

const char* SnapshotStateName(SnapshotState state) {
  return Name(kSnapshotStates, state);
}

Result<WorkspaceState> ParseWorkspaceState(std::string_view text) {
  return Parse(kWorkspaceStates, "workspace", text);
}

const char* WorkspaceStateName(WorkspaceState state) {
  return Name(kWorkspaceStates, state);
}

Result<ObjectState> ParseObjectState(std::string_view text) {
  return Parse(kObjectStates, "object", text);
}

const char* ObjectStateName(ObjectState state) {
  return Name(kObjectStates, state);
}

}  // namespace awc::catalog
