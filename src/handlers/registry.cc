#include "handlers/registry.h"

#include "handlers/payload.h"

namespace awc::handlers {

queue::Outcome Registry::Dispatch(JobContext& ctx) const {
  // An exception must not take the worker down (it would unwind through the
  // event loop's C frames). Its text may hold payload data, so it is not
  // kept: this is the one place an escaping exception becomes an outcome,
  // a Retry, which the retry path dead-letters once the attempts are spent.
  try {
    const queue::Job& job = ctx.job();
    auto it = entries_.find(job.kind);
    if (it == entries_.end()) {
      return queue::Outcome::Fail("unknown job kind",
                                  queue::DeadReason::kUnknownKind);
    }
    Result<JsonPtr> payload = ParseJson(job.payload);
    if (!payload.ok()) {
      return queue::Outcome::Fail(
          "malformed payload: " + payload.status().message(),
          queue::DeadReason::kMalformedPayload);
    }
    return it->second.run(ctx, payload->get());
  } catch (...) {
    return queue::Outcome::Retry(kHandlerRaised);
  }
}

Status Registry::CheckPayload(const std::string& kind,
                              std::string_view payload_json) const {
  auto it = entries_.find(kind);
  if (it == entries_.end()) return Status::NotFound("unknown job kind");
  Result<JsonPtr> payload = ParseJson(payload_json);
  Status s = payload.ok() ? it->second.check(payload->get()) : payload.status();
  if (!s.ok())
    return Status::InvalidArgument("malformed payload: " + s.message());
  return Status::OK();
}

std::vector<std::string> Registry::Kinds() const {
  std::vector<std::string> out;
  for (const auto& [kind, entry] : entries_) out.push_back(kind);
  return out;
}

}  // namespace awc::handlers
