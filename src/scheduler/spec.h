// Schedule specs: when a schedule fires (docs/scheduler.md, "Scheduler").
//
//   @every 90s, @every 6h, @every 1h30m, @every 2h0m30s
//       every so long: hours, minutes and seconds, each part optional but
//       in that order, at least one, each at most 9 digits; from 1 s to
//       366 days in all
//   @hourly   every hour, on the hour
//   @daily    every day at 00:00 UTC
//   @weekly   every Sunday at 00:00 UTC
//
// A spec is a grid of instants in Unix time (UTC): offset + k * period.
// `@every D` counts from the Unix epoch, so `@every 6h` fires at 00:00,
// 06:00, 12:00 and 18:00 UTC on every host alike; `@hourly` is `@every 1h`
// and `@daily` is `@every 24h`; `@weekly` counts from Sunday 1970-01-04.
// The text is checked by ParseSpec here and, more loosely, by a CHECK
// constraint of awc.schedules (migrations/0004_scheduler.sql).
//
// Times are microseconds since the epoch, as the database keeps them.
#ifndef AWC_SCHEDULER_SPEC_H_
#define AWC_SCHEDULER_SPEC_H_

#include <cstdint>
#include <string_view>

#include "common/status.h"

namespace awc::scheduler {

inline constexpr int64_t kMicros = 1'000'000;
inline constexpr int64_t kMaxPeriodSecs = 366 * 86400;

struct Spec {
  int64_t period_secs = 0;  // 1 .. kMaxPeriodSecs
  int64_t offset_secs = 0;  // the grid's origin, in [0, period_secs)

  bool operator==(const Spec&) const = default;
};

// Parses a spec; kInvalidArgument naming what is wrong (the text is
// quoted: specs are not secret).
Result<Spec> ParseSpec(std::string_view text);

// The first instant of the grid strictly after `t_us`.
int64_t NextAfter(const Spec& spec, int64_t t_us);

// How many instants of the grid lie in (slot_us, t_us]: the periods that a
// firing for `slot_us` made at `t_us` covers besides its own (a missed
// period fires once, on catch-up). 0 when t_us <= slot_us.
int64_t MissedBetween(const Spec& spec, int64_t slot_us, int64_t t_us);

}  // namespace awc::scheduler

#endif  // AWC_SCHEDULER_SPEC_H_
