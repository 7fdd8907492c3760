#include "cli/target.h"

#include <libpq-fe.h>

#include <cstring>

#include "common/percent_encode.h"

namespace awc::cli {
namespace {

std::string Host(std::string_view host) {
  // Several hosts, already "h1:p1,h2:p2" (TargetOfConninfo).
  if (host.find(',') != std::string_view::npos) return std::string(host);
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

TargetParts TargetOfConninfo(const std::string& conninfo) {
  char* error = nullptr;
  PQconninfoOption* given = PQconninfoParse(conninfo.c_str(), &error);
  if (error != nullptr) PQfreemem(error);
  if (given == nullptr) return {};
  PQconninfoOption* defaults = PQconndefaults();
  auto value = [&](const char* key) {
    for (PQconninfoOption* o = given; o->keyword != nullptr; ++o) {
      if (strcmp(o->keyword, key) == 0 && o->val != nullptr && *o->val) {
        return std::string(o->val);
      }
    }
    for (PQconninfoOption* o = defaults; o != nullptr && o->keyword != nullptr;
         ++o) {
      if (strcmp(o->keyword, key) == 0 && o->val != nullptr) {
        return std::string(o->val);
      }
    }
    return std::string();
  };
  TargetParts parts{value("user"), value("host"), value("port"),
                    value("dbname")};
  if (parts.host.empty()) parts.host = value("hostaddr");
  if (parts.dbname.empty()) parts.dbname = parts.user;
  PQconninfoFree(given);
  if (defaults != nullptr) PQconninfoFree(defaults);
  if (parts.host.find(',') != std::string::npos) {
    // host=a,b port=p1,p2 (or one port for all): "a:p1,b:p2".
    std::string joined;
    size_t h = 0, p = 0;
    while (h != std::string::npos) {
      size_t h_end = parts.host.find(',', h);
      size_t p_end = parts.port.find(',', p);
      std::string port = parts.port.substr(
          p, p_end == std::string::npos ? std::string::npos : p_end - p);
      if (!joined.empty()) joined += ",";
      joined += parts.host.substr(
          h, h_end == std::string::npos ? std::string::npos : h_end - h);
      if (!port.empty()) joined += ":" + port;
      h = h_end == std::string::npos ? h_end : h_end + 1;
      if (p_end != std::string::npos) p = p_end + 1;
    }
    parts.host = joined;
    parts.port.clear();
  }
  return parts;
}

TargetParts TargetOf(db::PgConn& conn) {
  PGconn* c = conn.raw();
  return {Or(PQuser(c)), Or(PQhost(c)), Or(PQport(c)), Or(PQdb(c))};
}

}  // namespace awc::cli
