// /api/overview: the overview's data as one JSON document, for scripts.
#include <cmath>
#include <cstdlib>

#include "common/json.h"
#include "console/pages.h"

namespace awc::console {
namespace {

// Strings valid UTF-8 (jansson refuses others); the server scrubs the
// body of secrets.
json_t* Text(const std::string& s) {
  std::string valid = ValidUtf8(s);
  return json_stringn(valid.data(), valid.size());
}
json_t* TextOrNull(const std::string& s) {
  return s.empty() ? json_null() : Text(s);
}
// Seconds to the millisecond.
json_t* Secs(const std::optional<double>& s) {
  return s ? json_real(std::round(*s * 1000) / 1000) : json_null();
}

// Embeds JSON text as a value (null when empty; a string when it does not
// parse).
json_t* Embedded(const std::string& text) {
  if (text.empty()) return json_null();
  Result<JsonPtr> doc = ParseJson(text);
  return doc.ok() ? doc->release() : Text(text);
}

void Set(json_t* obj, const char* key, json_t* value) {
  json_object_set_new(obj, key, value);
}

json_t* Queue(const Overview& o) {
  json_t* arr = json_array();
  for (const KindDepth& k : o.queue) {
    json_t* row = json_object();
    Set(row, "kind", Text(k.kind));
    Set(row, "ready", json_integer(k.ready));
    Set(row, "scheduled", json_integer(k.scheduled));
    Set(row, "running", json_integer(k.running));
    Set(row, "failed", json_integer(k.failed));
    Set(row, "cancelled", json_integer(k.cancelled));
    Set(row, "completed", json_integer(k.completed));
    Set(row, "ready_capped", json_boolean(k.ready >= kJobCountCap));
    Set(row, "scheduled_capped", json_boolean(k.scheduled >= kJobCountCap));
    Set(row, "completed_capped", json_boolean(k.completed >= kJobCountCap));
    Set(row, "oldest_ready_s", Secs(k.oldest_ready_secs));
    json_array_append_new(arr, row);
  }
  return arr;
}

json_t* IdClashes(const Overview& o) {
  json_t* arr = json_array();
  for (const fleet::IdClash& c : o.id_clashes) {
    json_t* row = json_object();
    Set(row, "worker_id", Text(c.worker_id));
    json_t* hosts = json_array();
    for (const std::string& h : c.hosts) json_array_append_new(hosts, Text(h));
    Set(row, "hosts", hosts);
    json_array_append_new(arr, row);
  }
  return arr;
}

json_t* Workers(const Overview& o) {
  json_t* arr = json_array();
  for (const fleet::WorkerRow& w : o.workers) {
    json_t* row = json_object();
    Set(row, "host", Text(w.host));
    Set(row, "slot", json_integer(w.slot));
    Set(row, "worker_id", Text(w.worker_id));
    Set(row, "pid", json_integer(w.pid));
    Set(row, "state", Text(w.state));
    Set(row, "job_id", w.job_id != 0 ? json_integer(w.job_id) : json_null());
    Set(row, "job_kind", w.job_id != 0 ? Text(w.job_kind) : json_null());
    Set(row, "heartbeat_age_s", Secs(w.heartbeat_age));
    Set(row, "fresh", json_boolean(w.fresh));
    Set(row, "started_at", Text(w.started_at));
    Set(row, "build", w.build.empty() ? json_null() : Text(w.build));
    // The job's progress, as its worker last wrote it (obs/progress.h).
    Result<JsonPtr> progress = ParseJson(w.progress);
    Set(row, "progress",
        !w.progress.empty() && progress.ok() ? progress->release()
                                             : json_null());
    json_array_append_new(arr, row);
  }
  return arr;
}

json_t* Scheduler(const SchedulerView& s) {
  json_t* out = json_object();
  if (s.leader) {
    json_t* l = json_object();
    Set(l, "holder", Text(s.leader->holder));
    Set(l, "token", json_integer(s.leader->token));
    Set(l, "expires_at", Text(s.leader->expires_at));
    Set(l, "expired", json_boolean(s.leader->expired));
    Set(out, "leader", l);
  } else {
    Set(out, "leader", json_null());
  }
  json_t* arr = json_array();
  for (const scheduler::ScheduleRow& r : s.schedules) {
    json_t* row = json_object();
    Set(row, "name", Text(r.name));
    Set(row, "spec", Text(r.spec));
    Set(row, "kind", TextOrNull(r.kind));
    Set(row, "builtin", json_boolean(r.builtin));
    Set(row, "paused", json_boolean(r.paused));
    Set(row, "next_run_at", TextOrNull(r.next_run_at));
    Set(row, "last_run_at", TextOrNull(r.last_run_at));
    Set(row, "runs", json_integer(r.runs));
    Set(row, "last_result", Embedded(r.last_result));
    json_array_append_new(arr, row);
  }
  Set(out, "schedules", arr);
  return out;
}

json_t* States(const std::vector<catalog::StateCount>& rows) {
  json_t* obj = json_object();
  for (const catalog::StateCount& r : rows) {
    Set(obj, r.state.c_str(), json_integer(r.count));
  }
  return obj;
}

json_t* Epochs(const Overview& o) {
  json_t* arr = json_array();
  for (const gc::EpochSummary& e : o.epochs) {
    json_t* row = json_object();
    Set(row, "tenant_id", Text(e.tenant_id));
    Set(row, "epoch_id", json_integer(e.epoch_id));
    Set(row, "state", Text(e.state));
    Set(row, "dry_run", json_boolean(e.dry_run));
    Set(row, "planned", json_integer(e.planned));
    Set(row, "deleted", json_integer(e.deleted));
    Set(row, "kept", json_integer(e.kept));
    Set(row, "started_at", Text(e.created_at));
    Set(row, "finished_ago_s", Secs(e.finished_secs_ago));
    json_array_append_new(arr, row);
  }
  return arr;
}

}  // namespace

std::string OverviewJson(const Overview& o) {
  JsonPtr doc(json_object());
  json_t* d = doc.get();
  Set(d, "database_time", Text(o.clock.now_iso));
  // The planner's estimate, null before the table's first ANALYZE: never a
  // 0 that reads as an empty queue.
  Set(d, "jobs_estimate",
      o.jobs_estimate ? json_integer(*o.jobs_estimate) : json_null());
  Set(d, "queue", Queue(o));
  json_t* paused = json_array();
  for (const queue::PausedKind& p : o.paused_kinds) {
    json_t* row = json_object();
    Set(row, "kind", Text(p.kind));
    Set(row, "paused_at", Text(p.paused_at));
    Set(row, "paused_by", TextOrNull(p.paused_by));
    Set(row, "reason", TextOrNull(p.reason));
    json_array_append_new(paused, row);
  }
  Set(d, "paused_kinds", paused);
  json_t* horizon = json_object();
  Set(horizon, "xids", json_integer(o.horizon.xids));
  Set(horizon, "hidden_sessions", json_integer(o.horizon.hidden_sessions));
  json_t* holder = json_null();
  if (const std::optional<queue::Horizon::Holder>& h = o.horizon.holder) {
    holder = json_object();
    Set(holder, "kind", Text(h->kind));
    Set(holder, "name", Text(h->name));
    Set(holder, "detail", TextOrNull(h->detail));
    Set(holder, "xids", json_integer(h->xids));
    Set(holder, "held_seconds",
        h->held_secs ? json_real(*h->held_secs) : json_null());
  }
  Set(horizon, "holder", holder);
  Set(d, "horizon", horizon);
  json_t* dead = json_array();
  for (const queue::ReasonCount& r : o.dead_by_reason) {
    json_t* row = json_object();
    Set(row, "reason", TextOrNull(r.reason));
    Set(row, "count", json_integer(r.count));
    json_array_append_new(dead, row);
  }
  Set(d, "dead_letters", dead);
  Set(d, "workers", Workers(o));
  Set(d, "id_clashes", IdClashes(o));
  Set(d, "scheduler", Scheduler(o.scheduler));
  Set(d, "snapshots", States(o.snapshots));
  json_t* caps = json_object();
  Set(caps, "ready", json_integer(kJobCountCap));
  Set(caps, "scheduled", json_integer(kJobCountCap));
  Set(caps, "completed", json_integer(kJobCountCap));
  Set(caps, "snapshots", json_integer(kSnapshotCap));
  Set(d, "count_caps", caps);
  Set(d, "workspaces", States(o.workspaces));
  Set(d, "gc_epochs", Epochs(o));
  char* text = json_dumps(d, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
  std::string out = text != nullptr ? text : "{}";
  free(text);
  return out + "\n";
}

}  // namespace awc::console
