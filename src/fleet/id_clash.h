// Worker ids on more than one host (docs/observability.md, "Worker ids on
// more than one host"): AWC_WORKER_ID names a host's workers, and the
// silent-holder rescue (docs/queue.md, "Silent holders") tells workers
// apart only by it. Two hosts that run one id are one holder to it: a job
// of a host that went silent is taken back only once the other host is
// silent too. Nothing stops two hosts from being configured so; this
// finds them in the heartbeats.
//
// Contract:
//  - A clash is an id (AWC_WORKER_ID: a row's worker id without its
//    "-<slot>") with live rows — fresh (fleet::kFreshSecs) and not
//    stopped — from two hosts or more. One host running two fleets under
//    one id (two instances of the template unit) is not seen: their rows
//    come from one host.
//  - IdClashes() reads them (sql::kIdClashes); GroupIdClashes() makes them
//    of that statement's rows, for the master's probe, which runs it on a
//    connection of its own (db/probe.h).
//  - IdClashWatch follows them for one host: each clash that involves the
//    host is logged once, as a warning naming the id and the hosts, when
//    it is first seen, and once more, as info, when it is over; Update()
//    returns a line for each clash seen now, for /readyz.
#ifndef AWC_FLEET_ID_CLASH_H_
#define AWC_FLEET_ID_CLASH_H_

#include <set>
#include <string>
#include <utility>
#include <vector>

#include "common/status.h"
#include "db/pg.h"

namespace awc::fleet {

struct IdClash {
  std::string worker_id;           // AWC_WORKER_ID
  std::vector<std::string> hosts;  // sorted, two or more
};

// One line: "worker id ID is in use on N hosts: A, B; give each host its
// own AWC_WORKER_ID (or leave it unset)".
std::string Describe(const IdClash& clash);
// The hosts, ", " between them.
std::string HostList(const IdClash& clash);

// Groups sql::kIdClashes's rows, (id, host) by id and host, into clashes.
std::vector<IdClash> GroupIdClashes(
    const std::vector<std::pair<std::string, std::string>>& rows);

// Every clash now, by id.
Result<std::vector<IdClash>> IdClashes(db::PgConn& conn);

class IdClashWatch {
 public:
  // `host` is this host's name, as its workers write it (HostName()).
  explicit IdClashWatch(std::string host) : host_(std::move(host)) {}

  // Takes the clashes seen now: logs those that involve this host and are
  // new, and those that are over; returns Describe() of each that involves
  // this host.
  std::vector<std::string> Update(const std::vector<IdClash>& now);

 private:
  std::string host_;
  // The clashes reported, as "<id> <hosts>".
  std::set<std::string> reported_;
};

}  // namespace awc::fleet

#endif  // AWC_FLEET_ID_CLASH_H_
