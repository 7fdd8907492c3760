#include "store/store_request.h"

#include "common/enum_table.h"

namespace awc::store {

const char* StoreOpName(StoreOp op) {
  const StoreOpRow* row = FindRow(kStoreOps, op);
  return row != nullptr ? row->name : "unknown";
}

const char* StoreResultName(StoreResult result) {
  const StoreResultRow* row = FindRow(kStoreResults, result);
  return row != nullptr ? row->name : "unknown";
}

StoreResult StoreResultOf(const Status& status) {
  if (status.ok()) return StoreResult::kOk;
  if (status.IsNotFound()) return StoreResult::kNotFound;
  if (status.IsTransient()) return StoreResult::kTransient;
  return StoreResult::kError;
}

std::array<std::string_view, 1> MetricLabels(StoreUrl::Scheme scheme) {
  return {SchemeName(scheme)};
}

std::array<std::string_view, 1> MetricLabels(StoreOp op) {
  return {StoreOpName(op)};
}

std::array<std::string_view, 1> MetricLabels(StoreResult result) {
  return {StoreResultName(result)};
}

}  // namespace awc::store
