// `awcctl schedules`: list the schedules and the scheduler's leader, and
// change them (docs/ARCHITECTURE.md, "Scheduler"; awcctl(1)).
//
//   awcctl schedules [list]
//   awcctl schedules pause|resume|run|remove NAME
//   awcctl schedules set NAME SPEC
//   awcctl schedules add NAME SPEC KIND PAYLOAD
//
// Exit status as awcctl's: 0 done, 1 a runtime error ("awcctl: <error>"),
// 2 a usage error (with this command's usage).
#ifndef AWC_CLI_SCHEDULES_CMD_H_
#define AWC_CLI_SCHEDULES_CMD_H_

#include <functional>
#include <memory>

#include "common/status.h"
#include "db/pg.h"

namespace awc::cli {

// The usage lines of the command, for awcctl's own usage text.
extern const char* const kSchedulesUsage;

// argv[0] is "schedules". `connect` opens the database (settings, schema
// check) when the command needs it.
int SchedulesMain(
    int argc, char** argv,
    const std::function<Result<std::unique_ptr<db::PgConn>>()>& connect);

}  // namespace awc::cli

#endif  // AWC_CLI_SCHEDULES_CMD_H_
