#include "queue/claim_cursor.h"

#include <algorithm>

#include "common/numbers.h"

namespace awc::queue {

void FullPassClock::Done(double now, double took_secs) {
  due_at_ = now + std::max(kMinSecs, kCostFactor * took_secs);
}

std::optional<std::string> ClaimCursor::micros_param() const {
  if (micros_ == kMinusInfinity) return std::nullopt;
  return std::to_string(micros_);
}

void ClaimCursor::Claimed(int64_t micros, int64_t id) {
  micros_ = micros;
  // The claim's bound is inclusive; the job itself, now RUNNING, is no
  // longer in the index in any case.
  id_ = id < std::numeric_limits<int64_t>::max() ? id + 1 : id;
}

void ClaimCursor::Passed(int64_t micros) {
  if (micros <= micros_) return;
  micros_ = micros;
  id_ = kMinusInfinity;
}

void ClaimCursor::JobReadyAt(int64_t micros) {
  if (micros > micros_) return;
  micros_ = micros;
  id_ = kMinusInfinity;
}

int64_t ClaimCursor::ParseMicros(std::string_view text) {
  Result<int64_t> micros = ParseInt64(text);
  return micros.ok() ? *micros : kMinusInfinity;
}

bool ClaimCursor::Begin(double now) {
  if (clock_.Due(now)) Rewind();
  return at_start();
}

void ClaimCursor::End(bool full_pass, bool ok, double now, double took_secs) {
  if (!ok) {
    Rewind();
    return;
  }
  if (full_pass) clock_.Done(now, took_secs);
}

}  // namespace awc::queue
