// What the master tells about the tree: the status line the service
// manager and `ps` show, and the answers of its HTTP endpoints (/metrics,
// /healthz, /readyz; docs/observability.md, "Observability").
#include <string>

#include "obs/scrape.h"
#include "supervisor/supervisor.h"

namespace awc::supervisor {

std::string Supervisor::StatusLine() const {
  int live = LiveWorkers();
  std::string line;
  if (state_ == State::kDraining) {
    line = "draining: " + std::to_string(live) + " workers finishing";
  } else if (state_ == State::kQuitting) {
    line = "stopping: " + std::to_string(live) + " workers exiting";
  } else {
    line = std::to_string(live) + "/" + std::to_string(options_.slots) +
           " workers";
    if (status_ != nullptr) {
      line += ": " + std::to_string(status_->Count(obs::WorkerPhase::kBusy)) +
              " busy, " +
              std::to_string(status_->Count(obs::WorkerPhase::kIdle)) + " idle";
      int connecting = status_->Count(obs::WorkerPhase::kConnecting);
      if (connecting > 0) {
        line += ", " + std::to_string(connecting) + " connecting";
      }
    }
  }
  for (size_t k = running_kinds_; k < kinds_.size(); ++k) {
    const ChildSpec& spec = kinds_[k].spec;
    std::string part = spec.status ? spec.status() : "";
    if (!part.empty()) line += "; " + part;
  }
  if (int retiring = RetiringChildren(); retiring > 0) {
    line += "; " + std::to_string(retiring) + " finishing after a reload";
  }
  if (status_ != nullptr) {
    line += "; " + std::to_string(status_->JobsDone()) + " jobs processed";
  }
  return line;
}

http::HttpResponse Supervisor::Route(const std::string& path) {
  http::HttpResponse r;
  if (path == "/metrics") {
    if (metrics_ == nullptr) return {404, r.content_type, "no metrics\n"};
    metrics_->SetWorkersRunning(LiveWorkers());
    r.content_type = "text/plain; version=0.0.4; charset=utf-8";
    r.body = obs::RenderScrape(*metrics_, status_, DownWorkers());
    return r;
  }
  if (path == "/healthz") {
    r.body = "ok\n";
    return r;
  }
  if (path == "/readyz") {
    std::string why;
    if (state_ != State::kRunning) why += "shutting down\n";
    if (LiveWorkers() == 0) why += "no worker running\n";
    if (status_ != nullptr && status_->Connected() == 0) {
      why += "no worker connected to the database\n";
    }
    // Sessions on a server that cannot write: not ready while any worker
    // sits on one (docs/operations.md, "Read-only sessions").
    if (int n = status_ != nullptr ? status_->ReadOnly() : 0; n > 0) {
      why += std::to_string(n) +
             (n == 1 ? " worker finds its database session"
                     : " workers find their database sessions") +
             " read-only (a standby, or default_transaction_read_only on) "
             "and connect" +
             (n == 1 ? "s" : "") + " again\n";
    }
    if (db_probe_ && db_probe_->up() == false) {
      why += "database unreachable\n";
    } else if (db_probe_ && !db_probe_->problem().empty()) {
      why += db_probe_->problem() + "\n";
    }
    if (why.empty()) {
      r.body = "ready\n";
    } else {
      r.status = 503;
      r.body = why;
    }
    // Warnings leave the answer as it is (worker ids in use on more than
    // one host: docs/observability.md).
    if (db_probe_) {
      for (const std::string& w : db_probe_->warnings()) r.body += w + "\n";
    }
    r.body += options_.readiness_note;
    return r;
  }
  return {404, r.content_type, "not found\n"};
}

}  // namespace awc::supervisor
