#include "db/probe.h"

#include <utility>

#include "db/pg.h"
#include "obs/log.h"

namespace awc::db {

Probe::Probe(struct ev_loop* loop, Options options)
    : loop_(loop), options_(std::move(options)) {
  ev_timer_init(&tick_, OnTick, 0, options_.interval_secs);
  tick_.data = this;
  ev_timer_init(&timeout_, OnTimeout, options_.timeout_secs, 0);
  timeout_.data = this;
  ev_init(&io_, OnIo);
  io_.data = this;
}

Probe::~Probe() { Stop(); }

void Probe::Start() { ev_timer_start(loop_, &tick_); }

void Probe::Stop() {
  ev_timer_stop(loop_, &tick_);
  ev_timer_stop(loop_, &timeout_);
  ev_io_stop(loop_, &io_);
  if (conn_ != nullptr) PQfinish(conn_);
  conn_ = nullptr;
  phase_ = Phase::kIdle;
}

void Probe::Begin() {
  if (phase_ != Phase::kIdle) return;  // the last check is still running
  ev_timer_set(&timeout_, options_.timeout_secs, 0);
  ev_timer_start(loop_, &timeout_);
  if (conn_ != nullptr) {
    SendQuery();
    return;
  }
  const char* keys[] = {"dbname", "application_name", nullptr};
  const char* values[] = {options_.conninfo.c_str(),
                          options_.application_name.c_str(), nullptr};
  conn_ = PQconnectStartParams(keys, values, /*expand_dbname=*/1);
  if (conn_ == nullptr || PQstatus(conn_) == CONNECTION_BAD) {
    End(false, conn_ != nullptr ? PQerrorMessage(conn_) : "out of memory");
    return;
  }
  phase_ = Phase::kConnecting;
  Watch(EV_WRITE);  // what PQconnectStartParams asks for first
}

void Probe::Step() {
  if (phase_ == Phase::kConnecting) {
    switch (PQconnectPoll(conn_)) {
      case PGRES_POLLING_READING:
        Watch(EV_READ);
        return;
      case PGRES_POLLING_WRITING:
        Watch(EV_WRITE);
        return;
      case PGRES_POLLING_OK:
        SendQuery();
        return;
      default:
        End(false, PQerrorMessage(conn_));
        return;
    }
  }
  if (phase_ != Phase::kQuerying) return;
  if (PQflush(conn_) == 1) {
    Watch(EV_READ | EV_WRITE);
    return;
  }
  if (PQconsumeInput(conn_) == 0) {
    End(false, PQerrorMessage(conn_));
    return;
  }
  bool ok = true;
  std::string error;
  while (PQisBusy(conn_) == 0) {
    PGresult* r = PQgetResult(conn_);
    if (r == nullptr) {
      End(ok, error);
      return;
    }
    if (PQresultStatus(r) != PGRES_TUPLES_OK) {
      ok = false;
      error = PQresultErrorMessage(r);
    } else if (PQntuples(r) > 0 && PQnfields(r) > 0) {
      Judge(PQgetvalue(r, 0, 0));
    }
    PQclear(r);
  }
  Watch(EV_READ);
}

void Probe::SendQuery() {
  phase_ = Phase::kQuerying;
  if (PQsetnonblocking(conn_, 1) != 0 ||
      PQsendQuery(conn_, options_.query.c_str()) == 0) {
    End(false, PQerrorMessage(conn_));
    return;
  }
  Watch(PQflush(conn_) == 1 ? EV_READ | EV_WRITE : EV_READ);
}

void Probe::End(bool ok, const std::string& error) {
  ev_timer_stop(loop_, &timeout_);
  ev_io_stop(loop_, &io_);
  phase_ = Phase::kIdle;
  if (!ok && conn_ != nullptr) {
    PQfinish(conn_);
    conn_ = nullptr;
  }
  if (up_ != ok) {
    if (ok) {
      obs::Info("supervisor", "database reachable").Emit();
    } else {
      obs::Warn("supervisor", "database unreachable")
          .Str("error", db::CleanMessage(error.c_str()))
          .Emit();
    }
  }
  up_ = ok;
}

void Probe::Judge(std::string_view value) {
  std::string problem = options_.judge ? options_.judge(value) : "";
  if (problem == problem_) return;
  if (problem.empty()) {
    obs::Info("supervisor", "database fit for use").Emit();
  } else {
    obs::Warn("supervisor", "database not fit for use")
        .Str("problem", problem)
        .Emit();
  }
  problem_ = std::move(problem);
}

void Probe::Watch(int events) {
  ev_io_stop(loop_, &io_);
  ev_io_set(&io_, PQsocket(conn_), events);
  ev_io_start(loop_, &io_);
}

void Probe::OnTick(struct ev_loop*, ev_timer* w, int) {
  static_cast<Probe*>(w->data)->Begin();
}

void Probe::OnTimeout(struct ev_loop*, ev_timer* w, int) {
  auto* self = static_cast<Probe*>(w->data);
  self->End(false,
            "no answer within " +
                std::to_string(static_cast<int>(self->options_.timeout_secs)) +
                " s");
}

void Probe::OnIo(struct ev_loop*, ev_io* w, int) {
  static_cast<Probe*>(w->data)->Step();
}

}  // namespace awc::db
