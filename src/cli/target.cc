#include "cli/target.h"

#include <libpq-fe.h>

#include "common/percent_encode.h"

namespace awc::cli {
namespace {

std::string Host(std::string_view host) {
  bool ipv6 = host.find(':') != std::string_view::npos &&
              host.find('/') == std::string_view::npos;
  if (!ipv6) return PercentEncode(host);
  std::string out = "[";
  for (char c : host) {
    bool ok = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
              (c >= 'A' && c <= 'F') || c == ':' || c == '.';
    out += ok ? std::string(1, c) : PercentEncode(std::string_view(&c, 1));
  }
  return out + "]";
}

std::string Or(const char* s) { return s != nullptr ? s : ""; }

}  // namespace

std::string TargetUrl(const TargetParts& parts) {
  std::string out = "postgresql://";
  if (!parts.user.empty()) out += PercentEncode(parts.user) + "@";
  out += Host(parts.host);
  if (!parts.port.empty()) out += ":" + PercentEncode(parts.port);
  out += "/" + PercentEncode(parts.dbname);
  return out;
}

TargetParts TargetOf(db::PgConn& conn) {
  PGconn* c = conn.raw();
  return {Or(PQuser(c)), Or(PQhost(c)), Or(PQport(c)), Or(PQdb(c))};
}

}  // namespace awc::cli
