// The `explain-plan` subcommand of awc-bench-storage (storage_bench_main.cc).
//
//   explain-plan --tenant T
//       EXPLAIN (ANALYZE, BUFFERS) of gc::sql::kPlan, run as the sweep runs
//       it (parameters as text, custom plan) for a new epoch, inside a
//       transaction that is rolled back. Prints the plan as text (not JSON).
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
  Check(conn->Exec("BEGIN").status(), "BEGIN");
  std::string epoch = Q(
      *conn,
      "INSERT INTO awc.gc_epochs (tenant_id, grace_secs, dry_run, batch_size, "
      "canary_size, state) VALUES ($1, $2, true, $3, $4, 'PLANNED') "
      "RETURNING id",
      {tenant, std::to_string(settings.gc_grace_secs),
       std::to_string(settings.gc_batch_size),
       std::to_string(settings.gc_canary_size)});
  // PREPARE infers the parameter types as PQexecParams does; the first
  // executions of a prepared statement get a custom plan for their values,
  // which is what the sweep's unnamed statement gets every time.
  Check(conn->Exec(std::string("PREPARE awc_plan AS ") + awc::gc::sql::kPlan)
            .status(),
        "PREPARE");
  // EXECUTE takes no bind parameters: the values are spelled out (the
  // tenant id was validated, the rest are numbers).
  auto r = conn->Exec("EXPLAIN (ANALYZE, BUFFERS) EXECUTE awc_plan('" + tenant +
                      "', '" + std::to_string(settings.gc_grace_secs) + "', '" +
                      epoch + "', '" + std::to_string(settings.gc_batch_size) +
                      "')");
  if (!r.ok()) Die("EXPLAIN: " + r.status().message());
  for (int i = 0; i < r->rows(); ++i)
    printf("%s\n", r->GetString(i, 0).c_str());
  (void)conn->Exec("ROLLBACK");
  return 0;
}

}  // namespace awc::bench
