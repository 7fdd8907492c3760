#include "scheduler/spec.h"

#include <string>

namespace awc::scheduler {
namespace {

constexpr int64_t kSundayOffsetSecs = 3 * 86400;  // 1970-01-01 was a Thursday

// Floor division for a positive divisor.
int64_t FloorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && a < 0) ? q - 1 : q;
}

// The index of the last grid instant at or before `t_us`.
int64_t GridIndex(const Spec& spec, int64_t t_us) {
  return FloorDiv(t_us - spec.offset_secs * kMicros,
                  spec.period_secs * kMicros);
}

Status Bad(std::string_view text, const std::string& why) {
  return Status::InvalidArgument("schedule spec \"" + std::string(text) +
                                 "\": " + why);
}

constexpr const char* kForms =
    "expected @every <N>h<N>m<N>s (e.g. @every 90s, @every 1h30m), @hourly, "
    "@daily or @weekly";

}  // namespace

Result<Spec> ParseSpec(std::string_view text) {
  if (text == "@hourly") return Spec{3600, 0};
  if (text == "@daily") return Spec{86400, 0};
  if (text == "@weekly") return Spec{7 * 86400, kSundayOffsetSecs};
  constexpr std::string_view kEvery = "@every ";
  if (!text.starts_with(kEvery)) return Bad(text, kForms);
  std::string_view rest = text.substr(kEvery.size());
  if (rest.empty()) return Bad(text, kForms);
  const char kUnits[] = {'h', 'm', 's'};
  const int64_t kScale[] = {3600, 60, 1};
  size_t unit = 0;  // the next unit allowed
  int64_t total = 0;
  size_t i = 0;
  while (i < rest.size()) {
    size_t start = i;
    while (i < rest.size() && rest[i] >= '0' && rest[i] <= '9') ++i;
    size_t digits = i - start;
    if (digits == 0 || i == rest.size()) return Bad(text, kForms);
    if (digits > 9) return Bad(text, "a number has more than 9 digits");
    size_t u = unit;
    while (u < 3 && kUnits[u] != rest[i]) ++u;
    if (u == 3) {
      bool known = rest[i] == 'h' || rest[i] == 'm' || rest[i] == 's';
      return Bad(text, known ? "units must come in the order h, m, s, once "
                               "each"
                             : kForms);
    }
    total += std::stoll(std::string(rest.substr(start, digits))) * kScale[u];
    unit = u + 1;
    ++i;
  }
  if (total < 1) return Bad(text, "the period must be at least 1s");
  if (total > kMaxPeriodSecs) {
    return Bad(text, "the period must be at most 366 days (8784h)");
  }
  return Spec{total, 0};
}

int64_t NextAfter(const Spec& spec, int64_t t_us) {
  return (GridIndex(spec, t_us) + 1) * spec.period_secs * kMicros +
         spec.offset_secs * kMicros;
}

int64_t MissedBetween(const Spec& spec, int64_t slot_us, int64_t t_us) {
  if (t_us <= slot_us) return 0;
  return GridIndex(spec, t_us) - GridIndex(spec, slot_us);
}

}  // namespace awc::scheduler
