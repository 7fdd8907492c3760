// The vocabulary of a request to an object store as it is counted
// (awc_store_requests_total{store,op,result} and
// awc_store_request_duration_seconds{store,op}; worker/metered_store.h
// counts them): which store (the URL's scheme, store_url.h), which
// operation (Get and GetMany's requests: get; Put and PutFile: put;
// DeleteMany: delete), and how it ended: ok, not_found, transient, aborted
// (the reader stopped the transfer: a sink or a List callback returned an
// error) or error (any other error).
#ifndef AWC_STORE_STORE_REQUEST_H_
#define AWC_STORE_STORE_REQUEST_H_

#include <array>
#include <string_view>

#include "common/status.h"
#include "store/store_url.h"

namespace awc::store {

enum class StoreOp { kGet, kHead, kPut, kDelete, kList };

struct StoreOpRow {
  StoreOp value;
  const char* name;
};
inline constexpr StoreOpRow kStoreOps[] = {
    {StoreOp::kGet, "get"},   {StoreOp::kHead, "head"},
    {StoreOp::kPut, "put"},   {StoreOp::kDelete, "delete"},
    {StoreOp::kList, "list"},
};

enum class StoreResult { kOk, kNotFound, kTransient, kAborted, kError };

struct StoreResultRow {
  StoreResult value;
  const char* name;
};
inline constexpr StoreResultRow kStoreResults[] = {
    {StoreResult::kOk, "ok"},
    {StoreResult::kNotFound, "not_found"},
    {StoreResult::kTransient, "transient"},
    {StoreResult::kAborted, "aborted"},
    {StoreResult::kError, "error"},
};

const char* StoreOpName(StoreOp op);
const char* StoreResultName(StoreResult result);
// The result of a store call that returned `status` (never kAborted: only
// the caller knows it stopped the call).
StoreResult StoreResultOf(const Status& status);

// The label values of each in the metrics (obs/metrics.h, MakeLabels).
std::array<std::string_view, 1> MetricLabels(StoreUrl::Scheme scheme);
std::array<std::string_view, 1> MetricLabels(StoreOp op);
std::array<std::string_view, 1> MetricLabels(StoreResult result);

}  // namespace awc::store

#endif  // AWC_STORE_STORE_REQUEST_H_
