#include "fleet/id_clash.h"

#include <algorithm>

#include "common/numbers.h"
#include "fleet/fleet_sql.h"
#include "fleet/workers.h"
#include "obs/log.h"

namespace awc::fleet {

std::string HostList(const IdClash& clash) {
  std::string out;
  for (const std::string& h : clash.hosts) {
    if (!out.empty()) out += ", ";
    out += h;
  }
  return out;
}

std::string Describe(const IdClash& clash) {
  return "worker id " + clash.worker_id + " is in use on " +
         std::to_string(clash.hosts.size()) + " hosts: " + HostList(clash) +
         "; give each host its own AWC_WORKER_ID (or leave it unset)";
}

std::vector<IdClash> GroupIdClashes(
    const std::vector<std::pair<std::string, std::string>>& rows) {
  std::vector<IdClash> out;
  for (const auto& [id, host] : rows) {
    if (out.empty() || out.back().worker_id != id) out.push_back({id, {}});
    out.back().hosts.push_back(host);
  }
  for (IdClash& c : out) std::sort(c.hosts.begin(), c.hosts.end());
  std::erase_if(out, [](const IdClash& c) { return c.hosts.size() < 2; });
  return out;
}

Result<std::vector<IdClash>> IdClashes(db::PgConn& conn) {
  AWC_ASSIGN_OR_RETURN(db::PgResult r,
                       conn.Exec(sql::kIdClashes, {SecondsText(kFreshSecs)}));
  std::vector<std::pair<std::string, std::string>> rows;
  for (int i = 0; i < r.rows(); ++i) {
    rows.emplace_back(r.GetString(i, 0), r.GetString(i, 1));
  }
  return GroupIdClashes(rows);
}

std::vector<std::string> IdClashWatch::Update(const std::vector<IdClash>& now) {
  std::vector<std::string> lines;
  std::set<std::string> seen;
  for (const IdClash& c : now) {
    if (std::find(c.hosts.begin(), c.hosts.end(), host_) == c.hosts.end()) {
      continue;
    }
    lines.push_back(Describe(c));
    std::string key = c.worker_id + " " + HostList(c);
    seen.insert(key);
    if (reported_.contains(key)) continue;
    obs::Warn("supervisor", "worker id in use on more than one host")
        .Str("worker_id", c.worker_id)
        .Str("hosts", HostList(c))
        .Emit();
  }
  for (const std::string& key : reported_) {
    if (seen.contains(key)) continue;
    size_t space = key.find(' ');
    obs::Info("supervisor", "worker id no longer in use on more than one host")
        .Str("worker_id", key.substr(0, space))
        .Str("hosts", key.substr(space + 1))
        .Emit();
  }
  reported_ = std::move(seen);
  return lines;
}

}  // namespace awc::fleet
