// awcctl store: what an operator does to an object store.
//
//   awcctl store init URL   create the store at URL: a file:// root directory
//                           (and its parents) if missing, and the store
//                           marker (store/store_marker.h) unless it is
//                           there. The daemon uses only stores that have
//                           the marker; memory:// needs none.
//
// S3 settings (endpoint, region, credentials) come from the configuration,
// as for the daemon; the URL comes from the command line.
#ifndef AWC_CLI_STORE_CMD_H_
#define AWC_CLI_STORE_CMD_H_

#include <string>

namespace awc::cli {

// The usage lines of `awcctl store`, for the usage text.
extern const char* const kStoreUsage;

// Runs `awcctl store ...`; argv[0] is "store". Returns the exit status;
// `usage` prints a usage error and returns its status.
int StoreCommand(const std::string& config_path, int argc, char** argv,
                 int (*usage)(const std::string& problem));

}  // namespace awc::cli

#endif  // AWC_CLI_STORE_CMD_H_
