#include "queue/claim_cursor.h"

#include <algorithm>

#include "common/numbers.h"

namespace awc::queue {

void FullPassClock::Done(double now, double took_secs) {
  due_at_ = now + std::max(kMinSecs, kCostFactor * took_secs);
}

std::optional<int64_t> ClaimPosition::micros() const {
  if (micros_ == kMinusInfinity) return std::nullopt;
  return micros_;
}

void ClaimPosition::Claimed(int64_t micros, int64_t id) {
  micros_ = micros;
  // The claim's bound is inclusive; the job itself, now RUNNING, is no
  // longer in the index in any case.
  id_ = id < std::numeric_limits<int64_t>::max() ? id + 1 : id;
}

void ClaimPosition::Passed(int64_t micros) {
  if (micros <= micros_) return;
  micros_ = micros;
  id_ = kMinusInfinity;
}

void ClaimPosition::JobReadyAt(int64_t micros) {
  if (micros > micros_) return;
  micros_ = micros;
  id_ = kMinusInfinity;
}

bool ClaimCursor::at_start() const {
  for (const ClaimPosition& p : positions_) {
    if (!p.at_start()) return false;
  }
  return true;
}

std::string ClaimCursor::micros_param() const {
  std::string out = "{";
  for (const ClaimPosition& p : positions_) {
    if (out.size() > 1) out += ',';
    std::optional<int64_t> micros = p.micros();
    out += micros ? std::to_string(*micros) : "NULL";
  }
  return out + "}";
}

std::string ClaimCursor::ids_param() const {
  std::string out = "{";
  for (const ClaimPosition& p : positions_) {
    if (out.size() > 1) out += ',';
    out += std::to_string(p.id());
  }
  return out + "}";
}

const ClaimPosition& ClaimCursor::position(int priority) const {
  return positions_[static_cast<size_t>(
      std::clamp(priority, 0, kPriorities - 1))];
}

void ClaimCursor::Claimed(int priority, int64_t micros, int64_t id,
                          int64_t now_micros) {
  // A priority outside the range cannot be stored (jobs_priority_range);
  // were it read, the cursor would only rewind that far.
  if (priority < 0 || priority >= kPriorities) {
    Rewind();
    return;
  }
  for (int p = 0; p < priority; ++p) {
    positions_[static_cast<size_t>(p)].Passed(now_micros);
  }
  positions_[static_cast<size_t>(priority)].Claimed(micros, id);
}

void ClaimCursor::Passed(int64_t micros) {
  for (ClaimPosition& p : positions_) p.Passed(micros);
}

void ClaimCursor::JobReadyAt(int64_t micros) {
  for (ClaimPosition& p : positions_) p.JobReadyAt(micros);
}

void ClaimCursor::Rewind() {
  for (ClaimPosition& p : positions_) p.Rewind();
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
