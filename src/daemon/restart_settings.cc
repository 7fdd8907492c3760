#include "daemon/restart_settings.h"

namespace awc::daemon {
namespace {

struct RestartOnly {
  const char* name;
  std::string config::Settings::*field;
};

constexpr RestartOnly kRestartOnly[] = {
    {"DATABASE_URL", &config::Settings::database_url},
    {"AWC_MIGRATE", &config::Settings::migrate},
    {"AWC_DATABASE_POOL_MODE", &config::Settings::database_pool_mode},
    {"AWC_CAS_URL", &config::Settings::cas_url},
    {"AWC_METRICS_LISTEN", &config::Settings::metrics_listen},
};

}  // namespace

std::vector<std::string> KeepRestartOnlySettings(
    const config::Settings& running, config::Settings* next) {
  std::vector<std::string> changed;
  for (const RestartOnly& s : kRestartOnly) {
    if (running.*s.field != next->*s.field) changed.push_back(s.name);
    next->*s.field = running.*s.field;
  }
  return changed;
}

}  // namespace awc::daemon
