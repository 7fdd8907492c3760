// VerifyObjects (cas/closure.h): scrub's re-read of a known list of objects.
#include <algorithm>
#include <string>
#include <vector>

#include "cas/closure.h"
#include "cas/object_read.h"

namespace awc::cas {

Result<std::vector<BadObject>> VerifyObjects(
    store::ObjectStore& store, const std::string& tenant_id,
    const std::vector<VerifyTarget>& targets, const BetweenReadsFn& checkpoint,
    const PaceFn& pace) {
  for (const VerifyTarget& t : targets) {
    AWC_RETURN_IF_ERROR(store::MakeKey(tenant_id, t.digest).status());
  }
  std::vector<BadObject> bad;
  size_t batch_max = ReadBatchSize(store);
  for (size_t pos = 0; pos < targets.size();) {
    if (pos > 0 && checkpoint) AWC_RETURN_IF_ERROR(checkpoint());
    size_t n = std::min(batch_max, targets.size() - pos);
    if (pace) {
      uint64_t bytes = 0;
      for (size_t i = 0; i < n; ++i) bytes += targets[pos + i].size.value_or(0);
      AWC_RETURN_IF_ERROR(pace(bytes, n));
    }
    std::vector<ObjectRead> reads(n);
    std::vector<std::string> digests(n);
    for (size_t i = 0; i < n; ++i) {
      digests[i] = targets[pos + i].digest;
      reads[i].has_declared = targets[pos + i].size.has_value();
      reads[i].declared = targets[pos + i].size.value_or(0);
    }
    ReadObjects(store, tenant_id, digests, reads, 0, checkpoint);
    for (size_t i = 0; i < n; ++i) {
      ObjectRead& r = reads[i];
      if (!IsJudged(r)) return r.status;
      std::string detail;
      Verdict v = CheckRead(r, digests[i], 0, &detail);
      if (v != Verdict::kOk) bad.push_back({digests[i], v});
    }
    pos += n;
  }
  return bad;
}

}  // namespace awc::cas
