#include "handlers/registry.h"

#include "common/build_version.h"
#include "handlers/outcomes.h"
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
    if (it == entries_.end()) return UnknownKind(ctx);
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

queue::Outcome Registry::UnknownKind(JobContext& ctx) const {
  const queue::Job& job = ctx.job();
  if (other_builds_) {
    Result<std::vector<std::string>> builds = other_builds_(ctx, job.kind);
    if (!builds.ok()) return RetryOn(builds.status());
    if (!builds->empty()) {
      std::string named;
      for (const std::string& b : *builds) {
        named += (named.empty() ? "" : ", ") + (b.empty() ? "an older one" : b);
      }
      return queue::Outcome::Defer(
          kLeftForOtherBuildSecs,
          "this build (" + std::string(BuildVersion()) +
              ") has no handler for the kind; left for the live workers of "
              "build " +
              named + ", which handle it");
    }
  }
  return queue::Outcome::Fail("unknown job kind",
                              queue::DeadReason::kUnknownKind);
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
