// The workers' heartbeats in awc.workers (docs/observability.md, "Worker
// heartbeats"): what each worker writes about itself, and how awcctl reads
// the fleet. The SQL is in fleet_sql.h.
//
// Contract:
//  - A worker process owns one row, keyed by (host, pid). It writes the row
//    when its state changes — at most once every kBeatMinSecs, so a worker
//    going through thousands of jobs a second writes a few rows a second —
//    and at least every AWC_WORKER_HEARTBEAT_SECS (kBeatKeepaliveSecs by
//    default) while it lives; its last write,
//    when it stops, says "stopped".
//  - A heartbeat younger than kFreshSecs is fresh: its worker is taken to be
//    alive. Rows silent for kForgetSecs are removed by the workers (Prune).
#ifndef AWC_FLEET_WORKERS_H_
#define AWC_FLEET_WORKERS_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "db/pg.h"

namespace awc::fleet {

inline constexpr double kBeatMinSecs = 2;
inline constexpr double kBeatKeepaliveSecs = 10;
inline constexpr double kFreshSecs = 60;
inline constexpr double kForgetSecs = 3600;

// Who a worker process is.
struct WorkerIdentity {
  std::string host;       // gethostname()
  int64_t pid = 0;        // getpid()
  std::string worker_id;  // AWC_WORKER_ID-<slot>
  int slot = 0;           // 1-based
  double started_at = 0;  // wall clock, epoch seconds
  // Its build, for the other builds of a fleet being upgraded host by host
  // (docs/operations.md, "Rolling upgrades"): the release, the newest
  // migration it knows, the job kinds it handles.
  std::string build;
  int schema_version = 0;
  std::vector<std::string> kinds;
};

// awc.workers.state.
enum class BeatState { kIdle, kBusy, kStopped };
const char* BeatStateName(BeatState state);  // "idle", "busy", "stopped"

// Writes the worker's row: its state and, while busy, its job (`job_id` 0
// and `job_kind` "" otherwise) and how far it has got (`progress`: JSON,
// obs/progress.h; "" for none).
Status Beat(db::PgConn& conn, const WorkerIdentity& me, BeatState state,
            int64_t job_id, std::string_view job_kind,
            std::string_view progress = "");

// Removes the rows of workers silent for kForgetSecs and of earlier
// processes of `me`'s worker id on its host; returns how many.
Result<int64_t> Prune(db::PgConn& conn, const WorkerIdentity& me);

// One row of awc.workers, as awcctl shows it.
struct WorkerRow {
  std::string host;
  int slot = 0;
  std::string worker_id;
  int64_t pid = 0;
  std::string state;
  int64_t job_id = 0;  // 0 when none
  std::string job_kind;
  std::string started_at;     // ISO 8601, UTC
  double heartbeat_age = 0;   // seconds, database clock
  bool fresh = false;         // heartbeat younger than kFreshSecs
  std::string progress;       // JSON (obs/progress.h), "" when none
  std::string progress_line;  // its "line", "" when none
  std::string build;          // its release; "" for a build that does not say
  int schema_version = 0;     // the newest migration it knows; 0: not said
};

// Every row, by host and slot.
Result<std::vector<WorkerRow>> ListWorkers(db::PgConn& conn);

// The fresh rows of workers that have not stopped; none when there is no
// awc.workers yet (a database being migrated from scratch).
Result<std::vector<WorkerRow>> LiveWorkers(db::PgConn& conn);

// The builds ("" for one that does not say) of the live workers (fresh,
// not stopped) that handle job kind `kind`.
Result<std::vector<std::string>> BuildsHandling(db::PgConn& conn,
                                                const std::string& kind);

}  // namespace awc::fleet

#endif  // AWC_FLEET_WORKERS_H_
