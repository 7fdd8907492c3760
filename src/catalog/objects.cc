#include "catalog/objects.h"

#include <set>

namespace awc::catalog {
namespace {

std::string SizesLiteral(const std::vector<uint64_t>& sizes) {
  std::vector<std::string> text;
  text.reserve(sizes.size());
  for (uint64_t s : sizes) text.push_back(std::to_string(s));
  return db::ArrayLiteral(text);
}

}  // namespace

Result<std::map<std::string, std::string>> InventoryStates(
    db::PgConn& conn, const std::string& tenant,
    const std::vector<std::string>& digests) {
  AWC_ASSIGN_OR_RETURN(
      db::PgResult r,
      conn.Exec("SELECT digest, state FROM awc.objects WHERE tenant_id = $1 "
                "AND digest = ANY($2::text[])",
                {tenant, db::ArrayLiteral(digests)}));
  std::map<std::string, std::string> out;
  for (int i = 0; i < r.rows(); ++i) out[r.GetString(i, 0)] = r.GetString(i, 1);
  return out;
}

Result<std::vector<std::string>> RegisterObjects(
    db::PgConn& conn, const std::string& tenant,
    const std::vector<std::string>& digests,
    const std::vector<uint64_t>& sizes) {
  AWC_ASSIGN_OR_RETURN(
      db::PgResult r,
      conn.Exec("INSERT INTO awc.objects AS o (tenant_id, digest, size) "
                "SELECT $1, u.d, u.s FROM unnest($2::text[], $3::bigint[]) "
                "AS u(d, s) ON CONFLICT (tenant_id, digest) DO UPDATE SET "
                "last_seen_at = now() WHERE o.state = 'LIVE' RETURNING "
                "o.digest",
                {tenant, db::ArrayLiteral(digests), SizesLiteral(sizes)}));
  std::set<std::string> live;
  for (int i = 0; i < r.rows(); ++i) live.insert(r.GetString(i, 0));
  std::vector<std::string> deleting;
  for (const std::string& d : digests) {
    if (live.count(d) == 0) deleting.push_back(d);
  }
  return deleting;
}

Result<std::string> FirstDeleting(db::PgConn& conn, const std::string& tenant,
                                  const std::vector<std::string>& digests) {
  AWC_ASSIGN_OR_RETURN(
      db::PgResult r,
      conn.Exec("SELECT digest FROM awc.objects WHERE tenant_id = $1 AND "
                "digest = ANY($2::text[]) AND state = 'DELETING' LIMIT 1",
                {tenant, db::ArrayLiteral(digests)}));
  return r.rows() > 0 ? r.GetString(0, 0) : std::string();
}

Status AddMissingObjects(db::PgConn& conn, const std::string& tenant,
                         const std::vector<std::string>& digests,
                         const std::vector<uint64_t>& sizes) {
  return conn
      .Exec(
          "INSERT INTO awc.objects (tenant_id, digest, size) SELECT $1, "
          "u.d, u.s FROM unnest($2::text[], $3::bigint[]) AS u(d, s) ON "
          "CONFLICT DO NOTHING",
          {tenant, db::ArrayLiteral(digests), SizesLiteral(sizes)})
      .status();
}

}  // namespace awc::catalog
