// awc-worker-bench: the daemon with two benchmark-only handlers added.
// Built only with -DAWC_BUILD_BENCH=ON (make bench); never installed.
//
//   bench_noop   payload {}; does nothing, completes with {}. Queue
//                throughput is then the cost of claim + record + events.
//   bench_stamp  payload {}; completes with {"started_at": <epoch seconds,
//                CLOCK_REALTIME, microseconds>} taken when the handler
//                starts, for the pickup-latency benchmark
//                (started_at - created_at).
#include <time.h>

#include <cstdio>

#include "daemon/daemon.h"
#include "handlers/payload.h"
#include "handlers/registry.h"

namespace {

using awc::Result;
using awc::handlers::JobContext;
using awc::queue::Outcome;

struct Empty {};

Result<Empty> DecodeEmpty(const json_t* payload) {
  AWC_RETURN_IF_ERROR(awc::handlers::PayloadReader(payload).ExpectObject({}));
  return Empty{};
}

void RegisterBenchHandlers(awc::handlers::Registry& registry) {
  awc::handlers::RegisterBuiltinHandlers(registry);
  registry.Add<Empty>("bench_noop", DecodeEmpty, [](JobContext&, const Empty&) {
    return Outcome::Complete("{}");
  });
  registry.Add<Empty>(
      "bench_stamp", DecodeEmpty, [](JobContext&, const Empty&) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        char buf[64];
        snprintf(buf, sizeof buf, "{\"started_at\": %lld.%06ld}",
                 static_cast<long long>(ts.tv_sec), ts.tv_nsec / 1000);
        return Outcome::Complete(buf);
      });
}

}  // namespace

int main(int argc, char** argv) {
  return awc::daemon::DaemonMain(argc, argv, RegisterBenchHandlers);
}
