#include "scheduler/leader_lease.h"

#include "scheduler/leader_lease_sql.h"

namespace awc::scheduler {
namespace {

constexpr const char* kLostMessage = "leadership lost";

}  // namespace

Status LeadershipLost() { return Status::FailedPrecondition(kLostMessage); }

bool IsLeadershipLost(const Status& s) {
  return s.IsFailedPrecondition() && s.message() == kLostMessage;
}

LeaderLease::LeaderLease(db::PgConn* conn, std::string name, std::string holder,
                         int64_t lease_secs)
    : conn_(conn),
      name_(std::move(name)),
      holder_(std::move(holder)),
      lease_secs_(lease_secs) {}

Result<bool> LeaderLease::Acquire() {
  AWC_ASSIGN_OR_RETURN(
      db::PgResult r,
      conn_->ExecCached(sql::kAcquireLease,
                        {name_, holder_, std::to_string(lease_secs_)}));
  if (r.rows() == 0) return false;
  token_ = r.GetInt(0, 0);
  return true;
}

Result<bool> LeaderLease::Renew() {
  if (!held()) return false;
  AWC_ASSIGN_OR_RETURN(
      db::PgResult r, conn_->ExecCached(sql::kRenewLease,
                                        {name_, holder_, std::to_string(token_),
                                         std::to_string(lease_secs_)}));
  if (r.rows() == 0) token_ = 0;
  return held();
}

Status LeaderLease::Release() {
  if (!held()) return Status::OK();
  Status s = conn_
                 ->ExecCached(sql::kReleaseLease,
                              {name_, holder_, std::to_string(token_)})
                 .status();
  if (s.ok()) token_ = 0;
  return s;
}

Status LeaderLease::Fence() {
  if (!held()) return LeadershipLost();
  AWC_ASSIGN_OR_RETURN(
      db::PgResult r,
      conn_->ExecCached(sql::kFence, {name_, holder_, std::to_string(token_)}));
  if (r.rows() == 0) {
    token_ = 0;
    return LeadershipLost();
  }
  return Status::OK();
}

Result<std::optional<LeaseClamp>> LeaderLease::Clamp() {
  AWC_ASSIGN_OR_RETURN(db::PgResult r,
                       conn_->ExecCached(sql::kClampLease,
                                         {name_, std::to_string(lease_secs_)}));
  if (r.rows() == 0) return std::optional<LeaseClamp>();
  return std::optional<LeaseClamp>(LeaseClamp{.name = name_,
                                              .holder = r.GetString(0, 0),
                                              .token = r.GetInt(0, 1),
                                              .expires_at = r.GetString(0, 2),
                                              .clamped_to = r.GetString(0, 3),
                                              .lease_secs = lease_secs_});
}

}  // namespace awc::scheduler
