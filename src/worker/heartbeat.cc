#include "worker/heartbeat.h"

#include <algorithm>

namespace awc::worker {

Heartbeat::Heartbeat(JobSource* source, Reporter* reporter, Env* env,
                     double min_secs, double keepalive_secs)
    : source_(source),
      reporter_(reporter),
      env_(env),
      min_secs_(min_secs),
      keepalive_secs_(keepalive_secs) {}

void Heartbeat::Set(fleet::BeatState state, const queue::Job* job) {
  int64_t id = job != nullptr ? job->id : 0;
  if (state == state_ && id == job_id_) return;
  state_ = state;
  job_id_ = id;
  progress_.clear();
  job_kind_ = job != nullptr ? job->kind : "";
  changed_ = true;
}

void Heartbeat::Restart() { first_ = true; }

double Heartbeat::DueAt() const {
  if (first_) return 0;
  return last_write_ + (changed_ ? min_secs_ : keepalive_secs_);
}

double Heartbeat::SecondsUntilDue() const {
  return std::max(0.0, DueAt() - env_->NowMonotonic());
}

void Heartbeat::Tick() {
  if (env_->NowMonotonic() < DueAt()) return;
  Write();
}

void Heartbeat::Stop() {
  Set(fleet::BeatState::kStopped, nullptr);
  Write();
}

void Heartbeat::Write() {
  if (!source_->connected() || source_->broken()) return;
  double now = env_->NowMonotonic();
  JobSource::Beat beat{state_, job_id_, job_kind_, progress_,
                       first_ || now >= next_prune_};
  Status s = source_->Heartbeat(beat);
  last_write_ = now;
  first_ = false;
  if (!s.ok()) {
    // Tried again min_secs from now, as a change would be.
    // A lost session is reported (and replaced) by the loop's next round
    // trip; here the handler may still hold it.
    changed_ = true;
    reporter_->DatabaseError("heartbeat", s, false);
    return;
  }
  changed_ = false;
  if (beat.prune) next_prune_ = now + kPruneSecs;
}

}  // namespace awc::worker
