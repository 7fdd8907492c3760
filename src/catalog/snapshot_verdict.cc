#include "catalog/snapshot_verdict.h"

#include "common/enum_table.h"

namespace awc::catalog {

std::array<std::string_view, 2> MetricLabels(SnapshotVerdict verdict) {
  const SnapshotVerdictRow* row = FindRow(kSnapshotVerdicts, verdict);
  if (row == nullptr) return {"unknown", "unknown"};
  return {row->kind, row->verdict};
}

}  // namespace awc::catalog
