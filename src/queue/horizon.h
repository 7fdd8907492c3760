// What holds the database's MVCC horizon back (docs/queue.md, "The
// horizon"): the oldest transaction, snapshot, prepared transaction,
// replication slot or standby whose xmin keeps vacuum from removing what
// the queue's claims and recordings leave dead in awc.jobs. The claim
// cursor keeps the queue moving meanwhile; this says who is to blame, and
// since when, so that an operator can end it before the table's bloat does
// harm elsewhere.
//
// Contract:
//  - SampleHorizon() reads the catalog views only (one statement; no lock,
//    nothing written). It sees the sessions of this database (other
//    databases' do not hold back its tables), its prepared transactions,
//    the cluster's replication slots and standbys. What a role without
//    pg_read_all_stats may not see of another role's sessions
//    (pg_stat_activity hides their xmin) is counted, not named.
//  - Describe() names the holder without its query text (which may hold
//    secrets): pid, role, application, client address, state.
#ifndef AWC_QUEUE_HORIZON_H_
#define AWC_QUEUE_HORIZON_H_

#include <cstdint>
#include <optional>
#include <string>

#include "common/status.h"
#include "db/pg.h"

namespace awc::queue {

struct Horizon {
  // How many transactions the horizon lags behind (the holder's); 0 when
  // nothing this role can see holds it.
  int64_t xids = 0;
  // Sessions of this database whose xmin this role may not see.
  int64_t hidden_sessions = 0;

  // The holder this role can see with the oldest xmin, if any.
  struct Holder {
    std::string kind;    // "session", "prepared", "slot" or "standby"
    std::string name;    // pid and role, gid, slot or standby name
    std::string detail;  // application, client, state ("" when none)
    int64_t xids = 0;    // transactions its xmin lags behind
    // Seconds since its transaction began (sessions, prepared
    // transactions); nullopt for slots and standbys, which do not say.
    std::optional<double> held_secs;
  };
  std::optional<Holder> holder;
};

Result<Horizon> SampleHorizon(db::PgConn& conn);

// "session pid 4242 (report) [psql, 10.0.0.5, idle in transaction] for
// 12m05s, 1200000 transactions behind".
std::string Describe(const Horizon::Holder& holder);

}  // namespace awc::queue

#endif  // AWC_QUEUE_HORIZON_H_
