// The `explain-plan` subcommand of awc-bench-storage (storage_bench_main.cc).
//
//   explain-plan --tenant T
//       EXPLAIN (ANALYZE, BUFFERS) of gc::sql::kEligible, the statement
//       whose rows a plan counts and keeps the oldest of, run as the sweep
//       runs it (parameters as text, custom plan). Prints the plan as text
//       (not JSON).
#include <cstdio>
#include <string>

#include "digest/ids.h"
#include "gc/gc_sql.h"
#include "storage_bench_common.h"

namespace awc::bench {

int ExplainPlan(const Args& a) {
  auto settings = LoadSettings();
  auto conn = Connect(settings);
  std::string tenant = a.Str("tenant");
  if (!awc::digest::IsValidTenantId(tenant)) Die("malformed tenant id");
  // PREPARE infers the parameter types as PQexecParams does; the first
  // executions of a prepared statement get a custom plan for their values,
  // which is what the sweep's unnamed statement gets every time.
  Check(
      conn->Exec(std::string("PREPARE awc_plan AS ") + awc::gc::sql::kEligible)
          .status(),
      "PREPARE");
  // EXECUTE takes no bind parameters: the values are spelled out (the
  // tenant id was validated, the grace is a number). The statement only
  // reads.
  auto r = conn->Exec("EXPLAIN (ANALYZE, BUFFERS) EXECUTE awc_plan('" + tenant +
                      "', '" + std::to_string(settings.gc_grace_secs) + "')");
  if (!r.ok()) Die("EXPLAIN: " + r.status().message());
  for (int i = 0; i < r->rows(); ++i)
    printf("%s\n", r->GetString(i, 0).c_str());
  return 0;
}

}  // namespace awc::bench
