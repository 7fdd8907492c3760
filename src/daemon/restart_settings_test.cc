#include "daemon/restart_settings.h"

#include <gtest/gtest.h>

namespace awc::daemon {
namespace {

TEST(RestartSettingsTest, KeepsTheRunningValuesAndNamesWhatChanged) {
  config::Settings running;
  running.database_url = "postgresql://awc:old-secret@db1/awc";
  running.cas_url = "file:///srv/cas";
  running.metrics_listen = "127.0.0.1:9187";
  running.worker_concurrency = 2;

  config::Settings next = running;
  next.database_url = "postgresql://awc:new-secret@db2/awc";
  next.metrics_listen = "127.0.0.1:9188";
  next.worker_concurrency = 5;

  std::vector<std::string> changed = KeepRestartOnlySettings(running, &next);
  EXPECT_EQ(changed,
            (std::vector<std::string>{"DATABASE_URL", "AWC_METRICS_LISTEN"}));
  EXPECT_EQ(next.database_url, running.database_url);
  EXPECT_EQ(next.metrics_listen, running.metrics_listen);
  EXPECT_EQ(next.cas_url, running.cas_url);
  EXPECT_EQ(next.worker_concurrency, 5);  // reloadable: the new value stays
}

TEST(RestartSettingsTest, NothingChangedNamesNothing) {
  config::Settings running;
  running.cas_url = "memory://";
  config::Settings next = running;
  EXPECT_TRUE(KeepRestartOnlySettings(running, &next).empty());
}

}  // namespace
}  // namespace awc::daemon
