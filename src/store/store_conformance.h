// The ObjectStore conformance suite: one set of contract tests
// (object_store.h) that every store must pass, parameterized by how a
// fresh store is made.
//
// The TEST_P bodies are in store_conformance_test.cc, which instantiates
// them for memory:// and file://. To run them against another store from
// another test binary, compile store_conformance_test.cc into it (the
// memory:// and file:// instances come along; they take well under a
// second) and instantiate the suite with a factory:
//
//   namespace awc::store::storetest {
//   INSTANTIATE_TEST_SUITE_P(
//       S3, StoreConformanceTest,
//       ::testing::Values(StoreFactory{"s3", [] { return OpenS3ForTest(); }}),
//       StoreFactoryName);
//   }
//
// The helpers below are defined there too, for other store tests to share.
// Each test opens one store, owns it for its duration and expects it empty
// at the start; the store's TestStore removes what it made when destroyed.
#ifndef AWC_STORE_STORE_CONFORMANCE_H_
#define AWC_STORE_STORE_CONFORMANCE_H_

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "store/object_store.h"

namespace awc::store::storetest {

// A store under test and whatever it needs (a temporary directory, a
// bucket prefix); the destructor removes them.
class TestStore {
 public:
  virtual ~TestStore() = default;
  virtual ObjectStore* store() = 0;
};

struct StoreFactory {
  std::string name;  // in test names: "memory", "file", "s3"
  // A new, empty store for one test; an error fails the test.
  std::function<Result<std::unique_ptr<TestStore>>()> open;
};

// How gtest prints a factory (in ctest's test names): by its store's name.
inline void PrintTo(const StoreFactory& factory, std::ostream* os) {
  *os << factory.name;
}

// For INSTANTIATE_TEST_SUITE_P: names each instance after its store.
inline std::string StoreFactoryName(
    const ::testing::TestParamInfo<StoreFactory>& info) {
  return info.param.name;
}

// A TestStore that owns a plain ObjectStore and nothing else.
class OwnedTestStore : public TestStore {
 public:
  explicit OwnedTestStore(std::unique_ptr<ObjectStore> store)
      : store_(std::move(store)) {}
  ObjectStore* store() override { return store_.get(); }

 private:
  std::unique_ptr<ObjectStore> store_;
};

// A new directory under $TEST_TMPDIR, $TMPDIR or /tmp, removed with its
// contents when this is destroyed.
class ScopedTempDir {
 public:
  ScopedTempDir();
  ~ScopedTempDir();
  ScopedTempDir(const ScopedTempDir&) = delete;
  ScopedTempDir& operator=(const ScopedTempDir&) = delete;

  const std::string& path() const { return path_; }
  // How many entries the directory holds (not counting those of its
  // subdirectories).
  size_t Entries() const;

 private:
  std::string path_;
};

// What a Get() delivered.
struct Fetched {
  Status status;
  std::string data;
  std::vector<size_t> chunk_sizes;
};
Fetched Fetch(ObjectStore* store, const ObjectKey& key);

// Every object List() reports for `tenant` (a test failure if one is
// reported twice or List fails).
std::map<std::string, uint64_t> ListAll(ObjectStore* store,
                                        const std::string& tenant);

// The key of `content` (its real SHA-256) for `tenant`.
ObjectKey KeyFor(std::string_view tenant, std::string_view content);

// `size` bytes of a pattern that differs with `seed`.
std::string Pattern(size_t size, uint32_t seed);

class StoreConformanceTest : public ::testing::TestWithParam<StoreFactory> {
 protected:
  void SetUp() override;
  void TearDown() override;

  ObjectStore* store() { return test_store_->store(); }

 private:
  std::unique_ptr<TestStore> test_store_;
};

}  // namespace awc::store::storetest

#endif  // AWC_STORE_STORE_CONFORMANCE_H_
