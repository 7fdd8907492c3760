#include "cli/job_check.h"

#include "handlers/registry.h"

namespace awc::cli {

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
