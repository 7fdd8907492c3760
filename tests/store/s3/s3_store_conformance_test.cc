// The ObjectStore conformance suite (src/store/store_conformance.h) run
// against the s3:// store on s3rver; each test gets its own server.
#if AWC_WITH_S3

#include <ev.h>
#include <gtest/gtest.h>

#include <memory>

#include "store/s3/s3_store.h"
#include "store/store_conformance.h"
#include "store/store_url.h"
#include "tests/support/s3_server.h"

namespace awc::store::storetest {
namespace {

class S3TestStore : public TestStore {
 public:
  S3TestStore() : loop_(ev_loop_new(EVFLAG_AUTO)) {}
  ~S3TestStore() override {
    store_.reset();
    ev_loop_destroy(loop_);
  }

  Status Open() {
    if (!server_.ok() || !server_.CreateBucket("conformance")) {
      return Status::Internal("s3rver did not start");
    }
    S3Options s;
    s.endpoint = server_.Endpoint();
    s.force_path_style = true;
    s.access_key_id = awc::testing::S3Server::kAccessKeyId;
    s.secret_access_key = "conformance-secret";
    s.max_concurrency = 3;
    AWC_ASSIGN_OR_RETURN(StoreUrl url, ParseStoreUrl("s3://conformance/p"));
    AWC_ASSIGN_OR_RETURN(store_, NewS3Store(url, s, loop_));
    return Status::OK();
  }

  ObjectStore* store() override { return store_.get(); }

 private:
  awc::testing::S3Server server_;
  struct ev_loop* loop_;
  std::unique_ptr<ObjectStore> store_;
};

Result<std::unique_ptr<TestStore>> OpenS3() {
  auto store = std::make_unique<S3TestStore>();
  AWC_RETURN_IF_ERROR(store->Open());
  return std::unique_ptr<TestStore>(std::move(store));
}

}  // namespace

INSTANTIATE_TEST_SUITE_P(S3, StoreConformanceTest,
                         ::testing::Values(StoreFactory{"s3", OpenS3}),
                         StoreFactoryName);

}  // namespace awc::store::storetest

#endif  // AWC_WITH_S3
