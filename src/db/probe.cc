#include "db/probe.h"

#include <utility>

#include "db/pg.h"
#include "db/session_sql.h"
#include "db/writable.h"
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
  Drop();
}

void Probe::Drop() {
  ev_io_stop(loop_, &io_);
  if (conn_ != nullptr) PQfinish(conn_);
  conn_ = nullptr;
  phase_ = Phase::kIdle;
}

void Probe::Begin() {
  if (phase_ != Phase::kIdle) return;  // the last check is still running
  ev_timer_set(&timeout_, options_.timeout_secs, 0);
  ev_timer_start(loop_, &timeout_);
  next_ = 0;
  answers_.clear();
  if (conn_ != nullptr) {
    SendNext();
    return;
  }
  // As PgConn::Connect: the URL's own target_session_attrs wins, and one
  // that names several hosts looks for the one that takes writes.
  std::vector<const char*> keys;
  std::vector<const char*> values;
  if (NeedsReadWriteTarget(options_.conninfo)) {
    keys.push_back("target_session_attrs");
    values.push_back("read-write");
  }
  keys.insert(keys.end(), {"dbname", "application_name", nullptr});
  values.insert(values.end(), {options_.conninfo.c_str(),
                               options_.application_name.c_str(), nullptr});
  conn_ = PQconnectStartParams(keys.data(), values.data(), /*expand_dbname=*/1);
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
        if (PQsetnonblocking(conn_, 1) != 0) {
          End(false, PQerrorMessage(conn_));
          return;
        }
        SendNext();
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
  while (PQisBusy(conn_) == 0) {
    PGresult* r = PQgetResult(conn_);
    if (r == nullptr) {
      Answered();
      return;
    }
    if (PQresultStatus(r) == PGRES_TUPLES_OK) {
      for (int i = 0; i < PQntuples(r); ++i) {
        std::vector<std::string>& row = answer_.rows.emplace_back();
        for (int j = 0; j < PQnfields(r); ++j)
          row.push_back(PQgetvalue(r, i, j));
      }
    } else if (PQresultStatus(r) != PGRES_COMMAND_OK) {
      answer_.failed = true;
      error_ = PQresultErrorMessage(r);
    }
    PQclear(r);
  }
  Watch(EV_READ);
}

void Probe::SendNext() {
  phase_ = Phase::kQuerying;
  answer_ = Answer();
  error_.clear();
  const char* sql = sql::kSessionReadOnly;
  std::vector<const char*> params;
  if (next_ > 0) {
    const Statement& st = options_.statements[next_ - 1];
    sql = st.sql.c_str();
    for (const std::string& p : st.params) params.push_back(p.c_str());
  }
  if (PQsendQueryParams(conn_, sql, static_cast<int>(params.size()), nullptr,
                        params.data(), nullptr, nullptr, 0) == 0) {
    End(false, PQerrorMessage(conn_));
    return;
  }
  Watch(PQflush(conn_) == 1 ? EV_READ | EV_WRITE : EV_READ);
}

void Probe::Answered() {
  bool may_fail = next_ > 0 && options_.statements[next_ - 1].may_fail;
  if (answer_.failed && !may_fail) {
    End(false, error_);
    return;
  }
  if (next_ == 0) {
    // The session check: a session that cannot write is on the wrong
    // server; the next check connects again.
    const auto& rows = answer_.rows;
    Status writable = rows.size() == 1 && rows[0].size() == 2
                          ? SessionWritable(rows[0][0], rows[0][1])
                          : Status::OK();
    if (!writable.ok()) {
      End(true, "");
      Drop();
      SetProblem(writable.message());
      return;
    }
  } else {
    answers_.push_back(std::move(answer_));
  }
  if (next_ < options_.statements.size()) {
    ++next_;
    SendNext();
    return;
  }
  End(true, "");
  Verdict v = options_.judge ? options_.judge(answers_) : Verdict();
  warnings_ = std::move(v.warnings);
  SetProblem(std::move(v.problem));
}

void Probe::End(bool ok, const std::string& error) {
  ev_timer_stop(loop_, &timeout_);
  ev_io_stop(loop_, &io_);
  phase_ = Phase::kIdle;
  if (!ok) {
    Drop();
    warnings_.clear();
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

void Probe::SetProblem(std::string problem) {
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
