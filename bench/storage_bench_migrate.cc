// The `migrate` subcommand of awc-bench-storage (storage_bench_main.cc).
//
//   migrate
//       Applies the migrations to DATABASE_URL (the template databases).
#include <cstdio>

#include "migrate/migrator.h"
#include "storage_bench_common.h"

namespace awc::bench {

int Migrate(const Args&) {
  auto settings = LoadSettings();
  auto conn = Connect(settings);
  auto applied = awc::migrate::Migrate(*conn);
  if (!applied.ok()) Die("migrate: " + applied.status().message());
  printf("{\"applied\": %zu}\n", applied->size());
  return 0;
}

}  // namespace awc::bench
