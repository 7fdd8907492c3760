// Registry: job kind -> handler, each with its strict payload decoder.
//
// Dispatch() never throws and never retries by itself: an unknown kind, a
// payload that is not JSON, or one its decoder rejects is Outcome::Fail
// (dead-lettered at the first attempt); otherwise the handler's outcome. A
// handler (or decoder) that throws yields Outcome::Retry (bounded by
// max_attempts) with the error kHandlerRaised: the exception's text is
// dropped, since it may hold payload data.
#ifndef AWC_HANDLERS_REGISTRY_H_
#define AWC_HANDLERS_REGISTRY_H_

#include <jansson.h>

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "common/status.h"
#include "handlers/job_context.h"
#include "queue/job.h"

namespace awc::handlers {

// The error recorded (last_error) for a job whose handler threw.
inline constexpr const char* kHandlerRaised = "handler raised an exception";

class Registry {
 public:
  template <typename P>
  using Decoder = Result<P> (*)(const json_t*);
  template <typename P>
  using Run = std::function<queue::Outcome(JobContext&, const P&)>;

  // Registers `run` for `kind`; its payload is decoded by `decode` first.
  template <typename P>
  void Add(std::string kind, Decoder<P> decode, Run<P> run) {
    entries_[std::move(kind)] = [decode, run](JobContext& ctx,
                                              const json_t* payload) {
      Result<P> p = decode(payload);
      if (!p.ok()) {
        return queue::Outcome::Fail("malformed payload: " +
                                    p.status().message());
      }
      return run(ctx, *p);
    };
  }

  queue::Outcome Dispatch(JobContext& ctx) const;

  bool Has(const std::string& kind) const { return entries_.count(kind) > 0; }
  std::vector<std::string> Kinds() const;

 private:
  using Entry = std::function<queue::Outcome(JobContext&, const json_t*)>;
  std::map<std::string, Entry> entries_;
};

// The handlers of the shipped daemon.
void RegisterBuiltinHandlers(Registry& registry);

}  // namespace awc::handlers

#endif  // AWC_HANDLERS_REGISTRY_H_
