#include "handlers/registry.h"

#include "handlers/payload.h"

namespace awc::handlers {

queue::Outcome Registry::Dispatch(JobContext& ctx) const {
  const queue::Job& job = ctx.job();
  auto it = entries_.find(job.kind);
  if (it == entries_.end()) return queue::Outcome::Fail("unknown job kind");
  Result<JsonPtr> payload = ParseJson(job.payload);
  if (!payload.ok()) {
    return queue::Outcome::Fail("malformed payload: " +
                                payload.status().message());
  }
  return it->second(ctx, payload->get());
}

std::vector<std::string> Registry::Kinds() const {
  std::vector<std::string> out;
  for (const auto& [kind, entry] : entries_) out.push_back(kind);
  return out;
}

}  // namespace awc::handlers
