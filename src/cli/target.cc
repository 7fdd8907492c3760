#include "cli/target.h"

#include <libpq-fe.h>

namespace awc::cli {
namespace {

std::string Encode(std::string_view s) {
  static const char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (char ch : s) {
    unsigned char c = static_cast<unsigned char>(ch);
    bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                 (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_' ||
                 c == '~';
    if (plain) {
      out += ch;
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

std::string Host(std::string_view host) {
  bool ipv6 = host.find(':') != std::string_view::npos &&
              host.find('/') == std::string_view::npos;
  if (!ipv6) return Encode(host);
  std::string out = "[";
  for (char c : host) {
    bool ok = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
              (c >= 'A' && c <= 'F') || c == ':' || c == '.';
    out += ok ? std::string(1, c) : Encode(std::string_view(&c, 1));
  }
  return out + "]";
}

std::string Or(const char* s) { return s != nullptr ? s : ""; }

}  // namespace

std::string TargetUrl(const TargetParts& parts) {
  std::string out = "postgresql://";
  if (!parts.user.empty()) out += Encode(parts.user) + "@";
  out += Host(parts.host);
  if (!parts.port.empty()) out += ":" + Encode(parts.port);
  out += "/" + Encode(parts.dbname);
  return out;
}

TargetParts TargetOf(db::PgConn& conn) {
  PGconn* c = conn.raw();
  return {Or(PQuser(c)), Or(PQhost(c)), Or(PQport(c)), Or(PQdb(c))};
}

}  // namespace awc::cli
