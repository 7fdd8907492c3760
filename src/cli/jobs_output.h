// How jobs and changes to them are printed, shared by jobs_cmd.cc and
// dlq_cmd.cc.
#ifndef AWC_CLI_JOBS_OUTPUT_H_
#define AWC_CLI_JOBS_OUTPUT_H_

#include <string_view>
#include <vector>

#include "cli/invocation.h"
#include "cli/output.h"
#include "queue/admin.h"

namespace awc::cli {

// The table of job rows (last errors shortened to 60 characters in text,
// whole in JSON), or {"<key>": [...]} with --json.
void PrintJobRows(Invocation& inv, std::string_view key,
                  const std::vector<queue::JobRow>& rows);
Table JobRowsTable(const std::vector<queue::JobRow>& rows, bool whole_errors);

// One line per named job ("<verb> 12", "13: not <verb>, it is COMPLETED",
// "14: no such job") and "<verb> N of M jobs"; or the JSON document
// {"<verb>": N, "jobs": [{"id", "changed", "was"}]}. Returns 0 when every
// job changed, else 1. `from` names the states that allow the change.
int PrintIdOutcomes(Invocation& inv, std::string_view verb,
                    std::string_view from,
                    const std::vector<queue::IdOutcome>& outcomes);

}  // namespace awc::cli

#endif  // AWC_CLI_JOBS_OUTPUT_H_
