// Fixtures for the handler tests: objects written to a store and
// registered the way a producer does, snapshots and workspaces inserted
// with plain SQL, and a JobContext that runs a handler in-process against
// the real database.
#ifndef AWC_TESTS_SUPPORT_CAS_FIXTURE_H_
#define AWC_TESTS_SUPPORT_CAS_FIXTURE_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cas/manifest.h"
#include "handlers/handler_options.h"
#include "handlers/job_context.h"
#include "process/io_budget.h"
#include "store/object_store.h"
#include "tests/support/harness.h"

namespace awc::testing {

// Writes objects for one tenant and registers them in awc.objects. The
// constructor applies the migrations and creates the tenant.
class CasFixture {
 public:
  CasFixture(TestDatabase& db, store::ObjectStore& store, std::string tenant);

  const std::string& tenant() const { return tenant_; }

  // Stores `bytes` and registers it (LIVE, now); returns its digest.
  std::string Blob(const std::string& bytes);
  // Stores raw bytes under an explicit digest (for corrupt objects).
  void PutRaw(const std::string& digest, const std::string& bytes);

  struct Entry {
    std::string name;
    std::string digest;
    bool manifest = false;
    uint64_t size = 0;
  };
  // An entry for an object written by Blob()/Manifest() (size looked up).
  Entry E(const std::string& name, const std::string& digest);
  // Stores a canonical manifest of `entries` (sorted here); returns digest.
  std::string Manifest(std::vector<Entry> entries);
  // Stores `json` verbatim as an object; returns its digest.
  std::string RawObject(const std::string& json);

  uint64_t SizeOf(const std::string& digest) const;

  int64_t Workspace(const std::string& retention_json = "",
                    const std::string& state = "ACTIVE");
  int64_t Snapshot(const std::string& root,
                   const std::string& state = "VALIDATING",
                   int64_t workspace = 0);
  // A tree of `files` blobs spread over a few directories; returns root.
  std::string Tree(int files, const std::string& salt);

  // Makes an object look old to GC (created and last seen `secs` ago).
  void Age(const std::string& digest, int64_t secs);
  void AgeAll(int64_t secs);

  // Gives the file entries of the tenant's referenced manifests their
  // counts, as a GC epoch does before it plans (catalog/dag.h).
  void CountFileEntries();
  // The references `digest` has once they are counted.
  int64_t CountedRefs(const std::string& digest);

 private:
  TestDatabase& db_;
  store::ObjectStore& store_;
  std::string tenant_;
  std::map<std::string, uint64_t> sizes_;
};

// Runs handlers in-process: the claim is simulated (a RUNNING job row is
// inserted so Checkpoint() can renew it).
class TestContext : public handlers::JobContext {
 public:
  TestContext(TestDatabase& db, store::ObjectStore& store,
              handlers::HandlerOptions options = {});
  ~TestContext() override;

  const queue::Job& job() const override { return job_; }
  db::PgConn& db() override { return *conn_; }
  const handlers::HandlerOptions& options() const override { return options_; }
  struct ev_loop* loop() override {
    return loop_;
  }
  store::ObjectStore& store() override { return store_; }
  store::ObjectStore* repair_store() override { return repair_; }
  // The repair store the handlers see (none by default).
  void set_repair_store(store::ObjectStore* repair) { repair_ = repair; }
  obs::Metrics& metrics() override { return metrics_; }
  // At options().read_budget, on a budget of this context's own.
  Status Pace(uint64_t bytes, uint64_t objects) override;
  Status Checkpoint() override {
    ++checkpoints_;
    if (on_checkpoint) on_checkpoint(checkpoints_);
    return Status::OK();
  }

  // Called at every checkpoint with its count (tests interfere there).
  std::function<void(int)> on_checkpoint;

  handlers::HandlerOptions& mutable_options() { return options_; }
  int checkpoints() const { return checkpoints_; }
  // What the handlers counted (a region of this context's own).
  const obs::Metrics& counted() const { return metrics_; }
  // Gives the next handler run a fresh job id (GC lock holders differ).
  void NextJob();
  // Runs the next handler as `job`: a claim the test made with
  // queue::JobQueue (a job's next attempt has its id and a new token).
  void set_job(const queue::Job& job) { job_ = job; }

 private:
  std::unique_ptr<db::PgConn> conn_;
  store::ObjectStore& store_;
  store::ObjectStore* repair_ = nullptr;
  handlers::HandlerOptions options_;
  queue::Job job_;
  struct ev_loop* loop_;
  obs::Metrics metrics_;
  std::optional<process::IoBudget> budget_;
  int checkpoints_ = 0;
};

// The parsed result of a Complete outcome ("" members when absent).
std::string ResultField(const queue::Outcome& outcome, const char* key);

}  // namespace awc::testing

#endif  // AWC_TESTS_SUPPORT_CAS_FIXTURE_H_
