// Helpers of the scheduler's process tests: trees with a scheduler, which
// one leads, the runs their events report.
#ifndef AWC_TESTS_SUPPORT_SCHEDULER_SUPPORT_H_
#define AWC_TESTS_SUPPORT_SCHEDULER_SUPPORT_H_

#include <gtest/gtest.h>
#include <time.h>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include "scheduler/schedule_admin.h"
#include "scheduler/schedules.h"
#include "tests/support/harness.h"

namespace awc::testing {

// A tree with a scheduler: AWC_WORKER_ID `id` (its "host"), `workers`
// workers, leases of `lease_secs`.
inline DaemonProcess::Options SchedulerTree(
    const TestDatabase& db, const std::string& id, int lease_secs,
    int workers = 1,
    std::vector<std::pair<std::string, std::string>> extra = {}) {
  extra.insert(extra.begin(),
               {{"AWC_SCHEDULER", "on"},
                {"AWC_WORKER_ID", id},
                {"AWC_SCHEDULER_LEASE_SECS", std::to_string(lease_secs)}});
  return FleetOptions(db, workers, std::move(extra));
}

// Creates the built-in schedules paused, so that only a test's own
// schedules fire.
inline void PauseBuiltins(TestDatabase& db) {
  auto conn = db.Connect();
  ASSERT_TRUE(scheduler::EnsureBuiltins(*conn).ok());
  db.Exec("UPDATE awc.schedules SET paused = true WHERE builtin");
}

inline void AddSchedule(TestDatabase& db, const std::string& name,
                        const std::string& spec,
                        const std::string& kind = "test_complete") {
  auto conn = db.Connect();
  Status s = scheduler::AddSchedule(*conn, name, spec, kind, "{}");
  ASSERT_TRUE(s.ok()) << s.ToString();
}

// The tree's scheduler process, or -1.
inline pid_t SchedulerPid(const DaemonProcess& d) {
  for (pid_t c : d.Children()) {
    if (ProcessTitle(c).starts_with("awc-worker: scheduler")) return c;
  }
  return -1;
}

inline bool Leads(const DaemonProcess& d) {
  pid_t p = SchedulerPid(d);
  return p > 0 && ProcessTitle(p) == "awc-worker: scheduler leader";
}

inline bool StandsBy(const DaemonProcess& d) {
  pid_t p = SchedulerPid(d);
  return p > 0 && ProcessTitle(p) == "awc-worker: scheduler standby";
}

// What the kernel says `pid` waits in ("do_epoll_wait": the event loop's
// wait, between round trips to the database).
inline std::string WaitChannel(pid_t pid) {
  FILE* f = fopen(("/proc/" + std::to_string(pid) + "/wchan").c_str(), "r");
  if (f == nullptr) return "";
  char buf[128] = {};
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  return std::string(buf, n);
}

// Milliseconds since the epoch of an event's "2026-11-30T09:44:56.123Z".
inline int64_t IsoMillis(const std::string& iso) {
  tm t = {};
  const char* rest = strptime(iso.c_str(), "%Y-%m-%dT%H:%M:%S", &t);
  if (rest == nullptr || *rest != '.') return -1;
  return static_cast<int64_t>(timegm(&t)) * 1000 + atoi(rest + 1);
}

// One "schedule run" event of a schedule.
struct ScheduleRun {
  int64_t slot_ms;
  int64_t missed;
  int64_t enqueued;
  std::string result;
};

// The runs of `schedule` that the trees logged, by slot.
inline std::vector<ScheduleRun> Runs(
    const std::vector<const DaemonProcess*>& trees,
    const std::string& schedule) {
  std::vector<ScheduleRun> out;
  for (const DaemonProcess* d : trees) {
    for (auto& e : d->EventsWith("schedule run", "schedule_" + schedule)) {
      out.push_back({IsoMillis(Str(e.get(), "slot")), Int(e.get(), "missed"),
                     Int(e.get(), "enqueued"), Str(e.get(), "result")});
    }
  }
  std::sort(out.begin(), out.end(),
            [](const ScheduleRun& a, const ScheduleRun& b) {
              return a.slot_ms < b.slot_ms;
            });
  return out;
}

// Runs of an `@every <period_s>s` schedule tile its grid: no slot twice (no
// double fire), and each next slot is the first instant after the periods
// the previous firing covered (none lost; a stretch the leader missed is
// fired once, on catch-up).
inline void ExpectTiled(const std::vector<ScheduleRun>& runs,
                        int64_t period_s) {
  for (size_t i = 0; i + 1 < runs.size(); ++i) {
    EXPECT_EQ(runs[i].slot_ms % (period_s * 1000), 0) << "slot " << i;
    EXPECT_EQ(runs[i + 1].slot_ms - runs[i].slot_ms,
              period_s * 1000 * (1 + runs[i].missed))
        << "between runs " << i << " and " << i + 1;
  }
}

}  // namespace awc::testing

#endif  // AWC_TESTS_SUPPORT_SCHEDULER_SUPPORT_H_
