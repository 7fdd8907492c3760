#include "cli/job_check.h"

#include "handlers/registry.h"

namespace awc::cli {

Status CheckKind(const std::string& kind) {
  if (kind.empty()) return Status::InvalidArgument("KIND is empty");
  if (kind.size() > kMaxKindBytes) {
    return Status::InvalidArgument("KIND is longer than " +
                                   std::to_string(kMaxKindBytes) + " bytes (" +
                                   std::to_string(kind.size()) + ")");
  }
  return Status::OK();
}

Status CheckJob(const std::string& kind, const std::string& payload) {
  handlers::Registry registry;
  handlers::RegisterBuiltinHandlers(registry);
  Status s = registry.CheckPayload(kind, payload);
  if (s.IsNotFound()) {
    std::string known;
    for (const std::string& k : registry.Kinds()) {
      known += (known.empty() ? "" : ", ") + k;
    }
    return Status::InvalidArgument("unknown job kind \"" + kind +
                                   "\" (known: " + known + ")");
  }
  if (!s.ok()) return Status::InvalidArgument(s.message());
  return Status::OK();
}

}  // namespace awc::cli
