// Registry: job kind -> handler, each with its strict payload decoder.
//
// Dispatch() never throws and never retries by itself: an unknown kind, a
// payload that is not JSON, or one its decoder rejects is Outcome::Fail
// (dead-lettered at the first attempt, as unknown_kind or
// malformed_payload); otherwise the handler's outcome. A kind this build
// lacks that live workers of another build handle (SetOtherBuilds) is
// Outcome::Defer by kLeftForOtherBuildSecs instead, without spending an
// attempt, so that those workers take it (docs/operations.md, "Rolling
// upgrades"). A
// handler (or decoder) that throws yields Outcome::Retry (bounded by
// max_attempts) with the error kHandlerRaised: the exception's text is
// dropped, since it may hold payload data.
#ifndef AWC_HANDLERS_REGISTRY_H_
#define AWC_HANDLERS_REGISTRY_H_

#include <jansson.h>

#include <functional>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "handlers/job_context.h"
#include "queue/job.h"

namespace awc::handlers {

// The error recorded (last_error) for a job whose handler threw.
inline constexpr const char* kHandlerRaised = "handler raised an exception";

// How long a job of a kind this build lacks, and another build's live
// workers handle, is put back for: long enough that the claim recording
// the deferral does not take it again, short enough for a newer worker to
// be late by only that much.
inline constexpr double kLeftForOtherBuildSecs = 1;

class Registry {
 public:
  template <typename P>
  using Decoder = Result<P> (*)(const json_t*);
  template <typename P>
  using Run = std::function<queue::Outcome(JobContext&, const P&)>;

  // Registers `run` for `kind`; its payload is decoded by `decode` first.
  template <typename P>
  void Add(std::string kind, Decoder<P> decode, Run<P> run) {
    Entry& e = entries_[std::move(kind)];
    e.run = [decode, run](JobContext& ctx, const json_t* payload) {
      Result<P> p = decode(payload);
      if (!p.ok()) {
        return queue::Outcome::Fail(
            "malformed payload: " + p.status().message(),
            queue::DeadReason::kMalformedPayload);
      }
      return run(ctx, *p);
    };
    e.check = [decode](const json_t* payload) {
      return decode(payload).status();
    };
  }

  queue::Outcome Dispatch(JobContext& ctx) const;

  // What Dispatch() would refuse before running a handler, without running
  // one (awcctl enqueue): kNotFound "unknown job kind", or kInvalidArgument
  // "malformed payload: <why>" (the payload is never quoted).
  Status CheckPayload(const std::string& kind,
                      std::string_view payload_json) const;

  bool Has(const std::string& kind) const { return entries_.count(kind) > 0; }
  std::vector<std::string> Kinds() const;

  // The builds of live workers that handle a kind (the workers'
  // heartbeats), asked for a kind this build lacks; none set: no other
  // build is asked about.
  using OtherBuildsFn = std::function<Result<std::vector<std::string>>(
      JobContext& ctx, const std::string& kind)>;
  void SetOtherBuilds(OtherBuildsFn fn) { other_builds_ = std::move(fn); }

 private:
  queue::Outcome UnknownKind(JobContext& ctx) const;

  struct Entry {
    std::function<queue::Outcome(JobContext&, const json_t*)> run;
    std::function<Status(const json_t*)> check;  // the decoder alone
  };
  std::map<std::string, Entry> entries_;
  OtherBuildsFn other_builds_;
};

// The handlers of the shipped daemon (handlers/builtin.cc).
void RegisterBuiltinHandlers(Registry& registry);
// The kinds RegisterBuiltinHandlers() registers, in the order it does.
std::span<const std::string_view> BuiltinKinds();
// Of those, the background kinds: scrub, reconciliation and GC, which
// AWC_WORKER_BACKGROUND_CONCURRENCY limits on each host.
std::vector<std::string> BackgroundKinds();

}  // namespace awc::handlers

#endif  // AWC_HANDLERS_REGISTRY_H_
