#include "gc/epoch_result.h"

#include "common/enum_table.h"

namespace awc::gc {

const char* GcEpochResultName(GcEpochResult result) {
  const GcEpochResultRow* row = FindRow(kGcEpochResults, result);
  return row != nullptr ? row->name : "unknown";
}

std::array<std::string_view, 1> MetricLabels(GcEpochResult result) {
  return {GcEpochResultName(result)};
}

}  // namespace awc::gc
