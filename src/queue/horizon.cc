#include "queue/horizon.h"

#include <cmath>

namespace awc::queue {
namespace {

// (sessions of this database hidden from this role, then the holder's
// kind, name, detail, xids, held seconds or NULL; NULL holder columns
// when none is visible). pg_stat_activity shows another role's session
// without its xmin to a role lacking pg_read_all_stats.
constexpr const char* kSampleHorizon = R"sql(
WITH holders AS (
  SELECT 'session' AS kind,
         'pid ' || pid || ' (' || coalesce(usename, '?') || ')' AS name,
         concat_ws(', ', nullif(application_name, ''),
                   host(client_addr), state) AS detail,
         greatest(age(backend_xid), age(backend_xmin)) AS xids,
         extract(epoch FROM now() - xact_start) AS held_secs
    FROM pg_stat_activity
   WHERE datname = current_database() AND pid <> pg_backend_pid()
     AND (backend_xid IS NOT NULL OR backend_xmin IS NOT NULL)
  UNION ALL
  SELECT 'prepared', gid, 'owner ' || owner, age(transaction),
         extract(epoch FROM now() - prepared)
    FROM pg_prepared_xacts
   WHERE database = current_database()
  UNION ALL
  SELECT 'slot', slot_name, concat_ws(', ', slot_type,
                                      CASE WHEN active THEN 'active'
                                           ELSE 'inactive' END),
         age(xmin), NULL
    FROM pg_replication_slots
   WHERE xmin IS NOT NULL
  UNION ALL
  SELECT 'standby', coalesce(nullif(application_name, ''), 'pid ' || pid),
         concat_ws(', ', host(client_addr), state), age(backend_xmin), NULL
    FROM pg_stat_replication
   WHERE backend_xmin IS NOT NULL)
SELECT (SELECT count(*) FROM pg_stat_activity
         WHERE datname = current_database()
           AND query = '<insufficient privilege>'),
       h.kind, h.name, h.detail, h.xids, h.held_secs
  FROM (SELECT 1) one
  LEFT JOIN LATERAL (SELECT * FROM holders
                      ORDER BY xids DESC NULLS LAST, held_secs DESC NULLS LAST
                      LIMIT 1) h ON true
)sql";

// "12m05s", "3h02m", "45s".
std::string Duration(double secs) {
  int64_t s = static_cast<int64_t>(std::llround(secs < 0 ? 0 : secs));
  char buf[64];
  if (s >= 3600) {
    snprintf(buf, sizeof buf, "%lldh%02lldm", static_cast<long long>(s / 3600),
             static_cast<long long>(s % 3600 / 60));
  } else if (s >= 60) {
    snprintf(buf, sizeof buf, "%lldm%02llds", static_cast<long long>(s / 60),
             static_cast<long long>(s % 60));
  } else {
    snprintf(buf, sizeof buf, "%llds", static_cast<long long>(s));
  }
  return buf;
}

}  // namespace

Result<Horizon> SampleHorizon(db::PgConn& conn) {
  AWC_ASSIGN_OR_RETURN(db::PgResult r, conn.ExecCached(kSampleHorizon, {}));
  Horizon out;
  if (r.rows() == 0) return out;
  out.hidden_sessions = r.GetInt(0, 0);
  if (r.IsNull(0, 1)) return out;
  Horizon::Holder h;
  h.kind = r.GetString(0, 1);
  h.name = r.GetString(0, 2);
  h.detail = r.GetString(0, 3);
  h.xids = r.GetInt(0, 4);
  if (!r.IsNull(0, 5)) h.held_secs = r.GetDouble(0, 5);
  out.xids = h.xids;
  out.holder = std::move(h);
  return out;
}

std::string Describe(const Horizon::Holder& holder) {
  std::string out = holder.kind + " " + holder.name;
  if (!holder.detail.empty()) out += " [" + holder.detail + "]";
  if (holder.held_secs) out += " for " + Duration(*holder.held_secs);
  out += ", " + std::to_string(holder.xids) + " transactions behind";
  return out;
}

}  // namespace awc::queue
