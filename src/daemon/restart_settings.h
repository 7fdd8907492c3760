// The settings a reload (SIGHUP) cannot change: the database the schema
// was checked on, the object store whose marker was checked, the migration
// mode, and the metrics listener the master bound at start. A reload keeps
// their running values and names each one that changed, so the operator
// knows a restart is needed (awc-worker(8), RELOAD).
#ifndef AWC_DAEMON_RESTART_SETTINGS_H_
#define AWC_DAEMON_RESTART_SETTINGS_H_

#include <string>
#include <vector>

#include "config/settings.h"

namespace awc::daemon {

// Copies the restart-only settings of `running` into `next`; returns the
// names of those whose value differed (never the values: the database URL
// holds a password).
std::vector<std::string> KeepRestartOnlySettings(
    const config::Settings& running, config::Settings* next);

}  // namespace awc::daemon

#endif  // AWC_DAEMON_RESTART_SETTINGS_H_
