// The verb groups of awcctl: each Add…Commands() appends its group's
// commands (command.h) to the dispatcher's table (awcctl.cc). A new group
// is its <group>_cmd.cc and two lines here: its declaration and its place
// in kVerbGroups.
#ifndef AWC_CLI_VERBS_H_
#define AWC_CLI_VERBS_H_

#include <vector>

#include "cli/command.h"

namespace awc::cli {

void AddMigrateCommands(std::vector<Command>* out);    // migrate_cmd.cc
void AddRolesCommands(std::vector<Command>* out);      // roles_cmd.cc
void AddHealthCommands(std::vector<Command>* out);     // health_cmd.cc
void AddWorkersCommands(std::vector<Command>* out);    // workers_cmd.cc
void AddStatsCommands(std::vector<Command>* out);      // stats_cmd.cc
void AddJobsCommands(std::vector<Command>* out);       // jobs_cmd.cc
void AddKindsCommands(std::vector<Command>* out);      // kinds_cmd.cc
void AddDlqCommands(std::vector<Command>* out);        // dlq_cmd.cc
void AddEnqueueCommands(std::vector<Command>* out);    // enqueue_cmd.cc
void AddImportCommands(std::vector<Command>* out);     // import_cmd.cc
void AddStoreCommands(std::vector<Command>* out);      // store_cmd.cc
void AddSchedulesCommands(std::vector<Command>* out);  // schedules_cmd.cc
void AddServeCommands(std::vector<Command>* out);      // serve_cmd.cc

// The verb groups, in the order `awcctl help` lists them.
using AddCommandsFn = void (*)(std::vector<Command>*);
inline constexpr AddCommandsFn kVerbGroups[] = {
    AddMigrateCommands, AddRolesCommands, AddHealthCommands,
    AddWorkersCommands, AddStatsCommands, AddJobsCommands,
    AddKindsCommands,   AddDlqCommands,   AddEnqueueCommands,
    AddImportCommands,  AddStoreCommands, AddSchedulesCommands,
    AddServeCommands,
};

}  // namespace awc::cli

#endif  // AWC_CLI_VERBS_H_
