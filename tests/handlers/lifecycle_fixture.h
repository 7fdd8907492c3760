// The fixture of the tests of workspace_expire and snapshot_retain against
// a real database.
#ifndef AWC_TESTS_HANDLERS_LIFECYCLE_FIXTURE_H_
#define AWC_TESTS_HANDLERS_LIFECYCLE_FIXTURE_H_

#include <gtest/gtest.h>

#include "handlers/snapshot_retain.h"
#include "handlers/workspace_expire.h"
#include "store/memory_store.h"
#include "tests/support/cas_fixture.h"

namespace awc::testing {

class LifecycleTest : public ::testing::Test {
 protected:
  LifecycleTest() : store_(store::NewMemoryStore()), cas_(db_, *store_, "t1") {
    db_.Migrate();
    handlers::HandlerOptions o;
    o.retention_grace_secs = 3600;
    ctx_ = std::make_unique<TestContext>(db_, *store_, o);
    root_ = cas_.Manifest({cas_.E("f", cas_.Blob("x"))});
  }

  queue::Outcome Expire(int64_t ws) {
    return handlers::ExpireWorkspace(*ctx_, handlers::WorkspacePayload{ws});
  }
  queue::Outcome Retain(int64_t snap) {
    return handlers::RetainSnapshot(*ctx_, handlers::SnapshotPayload{snap});
  }
  std::string WsState(int64_t ws) {
    return db_.Scalar("SELECT state FROM awc.workspaces WHERE id = $1",
                      {std::to_string(ws)});
  }
  std::string SnapState(int64_t id) {
    return db_.Scalar("SELECT state FROM awc.snapshots WHERE id = $1",
                      {std::to_string(id)});
  }
  void SetWs(int64_t ws, const std::string& assignments) {
    db_.Exec("UPDATE awc.workspaces SET " + assignments + " WHERE id = $1",
             {std::to_string(ws)});
  }
  // A READY snapshot of `ws` created `age_secs` ago.
  int64_t Ready(int64_t ws, int64_t age_secs) {
    int64_t id = cas_.Snapshot(root_, "READY", ws);
    db_.Exec(
        "UPDATE awc.snapshots SET created_at = now() - make_interval(secs "
        "=> $2) WHERE id = $1",
        {std::to_string(id), std::to_string(age_secs)});
    return id;
  }
  int64_t Audits(const std::string& event) {
    return db_.Int("SELECT count(*) FROM awc.audit_events WHERE event = $1",
                   {event});
  }

  TestDatabase db_;
  std::unique_ptr<store::ObjectStore> store_;
  CasFixture cas_;
  std::unique_ptr<TestContext> ctx_;
  std::string root_;
};

}  // namespace awc::testing

#endif  // AWC_TESTS_HANDLERS_LIFECYCLE_FIXTURE_H_
