#include "catalog/states.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace awc::catalog {
namespace {

// Every state of each column, with its text as migrations/ spells it.
TEST(StatesTest, SnapshotStatesRoundTrip) {
  const std::vector<std::pair<SnapshotState, std::string>> all = {
      {SnapshotState::kValidating, "VALIDATING"},
      {SnapshotState::kReady, "READY"},
      {SnapshotState::kFailed, "FAILED"},
      {SnapshotState::kDegraded, "DEGRADED"},
      {SnapshotState::kReleased, "RELEASED"}};
  for (const auto& [state, text] : all) {
    EXPECT_EQ(SnapshotStateName(state), text);
    Result<SnapshotState> parsed = ParseSnapshotState(text);
    ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
    EXPECT_EQ(*parsed, state) << text;
  }
}

TEST(StatesTest, WorkspaceStatesRoundTrip) {
  const std::vector<std::pair<WorkspaceState, std::string>> all = {
      {WorkspaceState::kActive, "ACTIVE"},
      {WorkspaceState::kExpiring, "EXPIRING"},
      {WorkspaceState::kExpired, "EXPIRED"}};
  for (const auto& [state, text] : all) {
    EXPECT_EQ(WorkspaceStateName(state), text);
    Result<WorkspaceState> parsed = ParseWorkspaceState(text);
    ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
    EXPECT_EQ(*parsed, state) << text;
  }
}

TEST(StatesTest, ObjectStatesRoundTrip) {
  const std::vector<std::pair<ObjectState, std::string>> all = {
      {ObjectState::kLive, "LIVE"}, {ObjectState::kDeleting, "DELETING"}};
  for (const auto& [state, text] : all) {
    EXPECT_EQ(ObjectStateName(state), text);
    Result<ObjectState> parsed = ParseObjectState(text);
    ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
    EXPECT_EQ(*parsed, state) << text;
  }
}

TEST(StatesTest, UnknownTextIsAnErrorNamingIt) {
  // Case matters: the columns hold upper-case text only.
  for (const char* text : {"", "ready", "Ready", "READY ", "PENDING"}) {
    Result<SnapshotState> s = ParseSnapshotState(text);
    ASSERT_FALSE(s.ok()) << text;
    EXPECT_TRUE(s.status().IsInvalidArgument());
    EXPECT_EQ(s.status().message(),
              "unknown snapshot state \"" + std::string(text) + "\"");
  }
  EXPECT_EQ(ParseWorkspaceState("DELETED").status().message(),
            "unknown workspace state \"DELETED\"");
  EXPECT_EQ(ParseObjectState("READY").status().message(),
            "unknown object state \"READY\"");
  // One column's states are not another's.
  EXPECT_FALSE(ParseSnapshotState("ACTIVE").ok());
  EXPECT_FALSE(ParseWorkspaceState("LIVE").ok());
  EXPECT_FALSE(ParseObjectState("EXPIRED").ok());
}

}  // namespace
}  // namespace awc::catalog
