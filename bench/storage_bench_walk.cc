// The `walk` subcommand of awc-bench-storage (storage_bench_main.cc).
//
//   walk --tenant T --root DIGEST
//       One cas::WalkClosure of the root, with the limits of the settings
//       and a no-op checkpoint (the handlers renew their lease there).
//       Prints the wall and CPU seconds of the walk alone (store opened
//       before the clock starts), objects, bytes, reads; for s3:// also the
//       store's counters (most transfers in flight, connections opened).
#include <cinttypes>
#include <cstdio>
#include <string>

#include "cas/closure.h"
#include "options/module_options.h"
#include "storage_bench_common.h"
#if AWC_WITH_S3
#include "store/s3/s3_store.h"
#include "store/s3/s3_store_testing.h"
#endif

namespace awc::bench {

int Walk(const Args& a) {
  StoreSetup setup;
  const awc::config::Settings& settings = setup.settings;
  awc::store::ObjectStore& store = *setup.store;
  std::string tenant = a.Str("tenant");
  std::string root = a.Str("root");
  awc::cas::ClosureLimits limits = awc::options::ClosureLimitsFrom(settings);
  int64_t checkpoints = 0;
  Cpu c0 = Cpu::Self();
  double t0 = Now();
  auto report = awc::cas::WalkClosure(store, tenant, root, limits, [&] {
    ++checkpoints;
    return Status::OK();
  });
  double secs = Now() - t0;
  Cpu c1 = Cpu::Self();
  if (!report.ok()) Die("walk: " + report.status().message());
  if (report->verdict != awc::cas::Verdict::kOk) {
    Die(std::string("walk verdict ") + awc::cas::VerdictCode(report->verdict) +
        " on " + report->digest + ": " + report->detail);
  }
  printf(
      "{\"scheme\": \"%s\", \"parallelism\": %d, \"seconds\": %.6f, "
      "\"cpu_user\": %.3f, \"cpu_sys\": %.3f, \"objects\": %" PRIu64
      ", "
      "\"bytes\": %" PRIu64 ", \"reads\": %" PRIu64
      ", \"checkpoints\": %" PRId64,
      store.scheme(), store.parallelism(), secs, c1.user - c0.user,
      c1.sys - c0.sys, report->objects.size(), report->bytes, report->reads,
      checkpoints);
#if AWC_WITH_S3
  if (std::string(store.scheme()) == "s3") {
    awc::store::S3Stats st = awc::store::GetS3Stats(store);
    printf(", \"max_in_flight\": %d, \"transfers\": %" PRId64
           ", \"connections\": %" PRId64,
           st.max_in_flight, st.transfers, st.connections_opened);
  }
#endif
  printf("}\n");
  return 0;
}

}  // namespace awc::bench
