#include "worker/metered_store.h"

#include <gtest/gtest.h>

#include <deque>
#include <string>
#include <vector>

#include "digest/sha256.h"
#include "obs/metrics_testing.h"
#include "store/memory_store.h"
#include "store/store_request.h"
#include "testing/fault_env.h"

namespace awc::worker {
namespace {

using obs::testing::StoreBytesRead;
using obs::testing::StoreRequests;

using store::StoreOp;
using store::StoreResult;
using Scheme = store::StoreUrl::Scheme;

// A monotonic clock the test moves.
class Clock : public FaultEnv {
 public:
  Clock() : FaultEnv(Env::Default()) {}
  double NowMonotonic() override { return now; }
  double now = 100;
};

std::string Digest(const std::string& bytes) {
  return "sha256:" + digest::Sha256::HexOf(bytes);
}

// A store whose answers the test scripts: each call takes one second of
// the test's clock; GetMany runs `parallel` requests at a time, in order,
// each taking one second.
class ScriptedStore : public store::ObjectStore {
 public:
  ScriptedStore(Clock* clock, int parallel)
      : clock_(clock), parallel_(parallel) {}
  const char* scheme() const override { return "s3"; }
  int parallelism() const override { return parallel_; }
  Status Get(const store::ObjectKey&, const store::ChunkSink& sink) override {
    clock_->now += 1;
    AWC_RETURN_IF_ERROR(sink("abc"));
    return Status::OK();
  }
  void GetMany(std::vector<GetRequest>& requests) override {
    std::deque<size_t> running;
    size_t next = 0;
    while (next < requests.size() || !running.empty()) {
      while (running.size() < static_cast<size_t>(parallel_) &&
             next < requests.size()) {
        running.push_back(next++);
      }
      clock_->now += 1;
      size_t i = running.front();
      running.pop_front();
      Status s = requests[i].sink("0123456789");
      requests[i].done(s.ok() ? Status::OK() : s);
    }
  }
  Result<uint64_t> Head(const store::ObjectKey&) override {
    clock_->now += 1;
    return Status::Transient("timed out");
  }
  Status Put(const store::ObjectKey&, std::string_view) override {
    clock_->now += 1;
    return Status::FailedPrecondition("403 AccessDenied");
  }
  Status PutFile(const store::ObjectKey&, const std::string&) override {
    clock_->now += 1;
    return Status::OK();
  }
  Result<std::vector<Status>> DeleteMany(
      const std::vector<store::ObjectKey>& keys) override {
    clock_->now += 1;
    std::vector<Status> out(keys.size());
    if (keys.size() > 1) out[1] = Status::Transient("SlowDown");
    return out;
  }
  Result<std::string> ReadMarker() override {
    return Status::NotFound("no marker");
  }
  Status WriteMarker(std::string_view) override { return Status::OK(); }
  Status List(const std::string&, const std::string&,
              const ListFn& each) override {
    clock_->now += 1;
    for (const char* d : {"sha256:a", "sha256:b"}) {
      AWC_RETURN_IF_ERROR(each({d, d, 1, 0}));
    }
    return Status::OK();
  }

 private:
  Clock* clock_;
  int parallel_;
};

class MeteredStoreTest : public ::testing::Test {
 protected:
  double Requests(Scheme k, StoreOp op, StoreResult r) {
    return StoreRequests(metrics_, k, op, r);
  }
  // The sum of the duration histogram of `op` (an s3 store's).
  std::string DurationSum(const char* op) {
    std::string text = metrics_.RenderPrometheus();
    std::string prefix =
        std::string(
            "awc_store_request_duration_seconds_sum{store=\"s3\",op=\"") +
        op + "\"} ";
    size_t at = text.find(prefix);
    if (at == std::string::npos) return "absent";
    size_t end = text.find('\n', at);
    return text.substr(at + prefix.size(), end - at - prefix.size());
  }

  Clock clock_;
  obs::Metrics metrics_ = std::move(obs::Metrics::CreateShared().value());
};

TEST_F(MeteredStoreTest, CountsEachCallByOpAndResultAndTheBytesRead) {
  MeteredStore store(store::NewMemoryStore(), Scheme::kMemory, &metrics_,
                     &clock_);
  EXPECT_STREQ(store.scheme(), "memory");
  store::ObjectKey key{"t1", Digest("hello")};
  store::ObjectKey missing{"t1", Digest("nope")};
  ASSERT_TRUE(store.Put(key, "hello").ok());
  std::string got;
  ASSERT_TRUE(store
                  .Get(key,
                       [&](std::string_view c) {
                         got += c;
                         return Status::OK();
                       })
                  .ok());
  EXPECT_EQ(got, "hello");
  EXPECT_TRUE(store.Get(missing, [](std::string_view) { return Status::OK(); })
                  .IsNotFound());
  // A sink that refuses the bytes stops the read: aborted, not an error.
  Status stopped = store.Get(
      key, [](std::string_view) { return Status::Corruption("too large"); });
  EXPECT_TRUE(stopped.IsCorruption());
  EXPECT_EQ(*store.Head(key), 5u);
  EXPECT_TRUE(store.Head(missing).status().IsNotFound());
  std::vector<Result<uint64_t>> heads;
  std::vector<store::ObjectStore::HeadRequest> many;
  for (const store::ObjectKey& k : {key, missing, key}) {
    many.push_back({k, [&](Result<uint64_t> r) { heads.push_back(r); }});
  }
  store.HeadMany(many);
  ASSERT_EQ(heads.size(), 3u);
  EXPECT_EQ(*heads[0], 5u);
  EXPECT_TRUE(heads[1].status().IsNotFound());
  EXPECT_EQ(*heads[2], 5u);
  int listed = 0;
  ASSERT_TRUE(store
                  .List("t1", "",
                        [&](const store::ObjectStore::ListedKey&) {
                          ++listed;
                          return Status::OK();
                        })
                  .ok());
  EXPECT_EQ(listed, 1);
  Result<std::vector<Status>> deleted = store.DeleteMany({key, missing});
  ASSERT_TRUE(deleted.ok());
  EXPECT_EQ(deleted->size(), 2u);

  const Scheme m = Scheme::kMemory;
  EXPECT_EQ(Requests(m, StoreOp::kPut, StoreResult::kOk), 1);
  EXPECT_EQ(Requests(m, StoreOp::kGet, StoreResult::kOk), 1);
  EXPECT_EQ(Requests(m, StoreOp::kGet, StoreResult::kNotFound), 1);
  EXPECT_EQ(Requests(m, StoreOp::kGet, StoreResult::kAborted), 1);
  EXPECT_EQ(Requests(m, StoreOp::kGet, StoreResult::kError), 0);
  EXPECT_EQ(Requests(m, StoreOp::kHead, StoreResult::kOk), 3);
  EXPECT_EQ(Requests(m, StoreOp::kHead, StoreResult::kNotFound), 2);
  EXPECT_EQ(Requests(m, StoreOp::kList, StoreResult::kOk), 1);
  EXPECT_EQ(Requests(m, StoreOp::kDelete, StoreResult::kOk), 1);
  // "hello" read whole once, and handed to the refusing sink once.
  EXPECT_EQ(StoreBytesRead(metrics_, m), 10);
  EXPECT_EQ(StoreBytesRead(metrics_, Scheme::kS3), 0);
}

TEST_F(MeteredStoreTest, ErrorClassesAndTimesOfEveryOp) {
  MeteredStore store(std::make_unique<ScriptedStore>(&clock_, 1), Scheme::kS3,
                     &metrics_, &clock_);
  store::ObjectKey a{"t1", Digest("a")}, b{"t1", Digest("b")};
  EXPECT_TRUE(store.Head(a).status().IsTransient());
  EXPECT_TRUE(store.Put(a, "a").IsFailedPrecondition());
  EXPECT_TRUE(store.PutFile(a, "/x").ok());
  Result<std::vector<Status>> deleted = store.DeleteMany({a, b});
  ASSERT_TRUE(deleted.ok());
  EXPECT_TRUE((*deleted)[1].IsTransient());
  // A List callback that stops the listing: aborted.
  EXPECT_FALSE(store
                   .List("t1", "",
                         [](const store::ObjectStore::ListedKey&) {
                           return Status::Internal("enough");
                         })
                   .ok());
  const Scheme s3 = Scheme::kS3;
  EXPECT_EQ(Requests(s3, StoreOp::kHead, StoreResult::kTransient), 1);
  EXPECT_EQ(Requests(s3, StoreOp::kPut, StoreResult::kError), 1);
  EXPECT_EQ(Requests(s3, StoreOp::kPut, StoreResult::kOk), 1);
  // A delete whose call succeeded takes the class of its failed key.
  EXPECT_EQ(Requests(s3, StoreOp::kDelete, StoreResult::kTransient), 1);
  EXPECT_EQ(Requests(s3, StoreOp::kList, StoreResult::kAborted), 1);
  // Each call took one second of the clock.
  EXPECT_EQ(DurationSum("head"), "1");
  EXPECT_EQ(DurationSum("put"), "2");
  EXPECT_EQ(DurationSum("delete"), "1");
  EXPECT_EQ(DurationSum("list"), "1");
}

TEST_F(MeteredStoreTest, GetManyTimesEachRequestFromItsStart) {
  MeteredStore store(std::make_unique<ScriptedStore>(&clock_, 2), Scheme::kS3,
                     &metrics_, &clock_);
  EXPECT_EQ(store.parallelism(), 2);
  std::vector<store::ObjectStore::GetRequest> requests(5);
  std::vector<int> done_order;
  std::vector<std::string> got(5);
  for (int i = 0; i < 5; ++i) {
    requests[i].key = {"t1", Digest(std::to_string(i))};
    requests[i].sink = [&got, i](std::string_view c) {
      got[i] += c;
      return i == 3 ? Status::Corruption("size mismatch") : Status::OK();
    };
    requests[i].done = [&done_order, i](Status) { done_order.push_back(i); };
  }
  store.GetMany(requests);
  EXPECT_EQ(done_order, (std::vector<int>{0, 1, 2, 3, 4}));
  EXPECT_EQ(got[4], "0123456789");
  // Two at a time, one second each to complete: 0 and 1 start at once and
  // end after 1 and 2 s; 2 starts when 0 ends (1 s in) and ends at 3 s; 3
  // starts at 2 s, ends at 4 s; 4 starts at 3 s, ends at 5 s.
  EXPECT_EQ(DurationSum("get"), "9");
  EXPECT_EQ(Requests(Scheme::kS3, StoreOp::kGet, StoreResult::kOk), 4);
  EXPECT_EQ(Requests(Scheme::kS3, StoreOp::kGet, StoreResult::kAborted), 1);
  EXPECT_EQ(StoreBytesRead(metrics_, Scheme::kS3), 50);
}

// Lines of `text` that start with `prefix`.
int CountLines(const std::string& text, const std::string& prefix) {
  int n = 0;
  for (size_t at = 0; at < text.size();) {
    size_t end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    n += text.compare(at, prefix.size(), prefix) == 0;
    at = end + 1;
  }
  return n;
}

TEST_F(MeteredStoreTest, ItsStoreShowsEveryOpAndResultFromItsFirstRequest) {
  MeteredStore store(store::NewMemoryStore(), Scheme::kFile, &metrics_,
                     &clock_);
  EXPECT_EQ(CountLines(metrics_.RenderPrometheus(), "awc_store_"), 0);
  ASSERT_TRUE(store.Put({"t1", Digest("x")}, "x").ok());
  std::string text = metrics_.RenderPrometheus();
  // 5 ops x 5 results, in order, for this store only.
  EXPECT_EQ(CountLines(text, "awc_store_requests_total{store=\"file\","), 25);
  EXPECT_EQ(CountLines(text, "awc_store_requests_total{"), 25);
  size_t get_ok = text.find(
      "awc_store_requests_total{store=\"file\",op=\"get\",result=\"ok\"} 0\n");
  size_t get_error = text.find(
      "awc_store_requests_total{store=\"file\",op=\"get\",result=\"error\"} "
      "0\n");
  size_t put_ok = text.find(
      "awc_store_requests_total{store=\"file\",op=\"put\",result=\"ok\"} 1\n");
  size_t list_error = text.find(
      "awc_store_requests_total{store=\"file\",op=\"list\",result=\"error\"} "
      "0\n");
  ASSERT_NE(list_error, std::string::npos) << text;
  EXPECT_LT(get_ok, get_error);
  EXPECT_LT(get_error, put_ok);
  EXPECT_LT(put_ok, list_error);
  // One histogram per op: 16 bounds, +Inf, sum and count each.
  EXPECT_EQ(CountLines(text, "awc_store_request_duration_seconds_"), 5 * 19);
  EXPECT_NE(text.find("awc_store_request_duration_seconds_bucket{store="
                      "\"file\",op=\"head\",le=\"+Inf\"} 0\n"),
            std::string::npos);
  EXPECT_NE(text.find("awc_store_bytes_read_total{store=\"file\"} 0\n"),
            std::string::npos);
  EXPECT_EQ(text.find("store=\"memory\""), std::string::npos);
}

}  // namespace
}  // namespace awc::worker
