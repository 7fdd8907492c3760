#include "common/redact.h"

#include <libpq-fe.h>

#include <algorithm>
#include <memory>
#include <vector>

namespace awc {
namespace {

std::vector<std::string>& Secrets() {
  static std::vector<std::string> secrets;
  return secrets;
}

struct ConnInfoDeleter {
  void operator()(PQconninfoOption* o) const { PQconninfoFree(o); }
};
using ConnInfoPtr = std::unique_ptr<PQconninfoOption, ConnInfoDeleter>;

ConnInfoPtr ParseConnInfo(std::string_view conninfo) {
  std::string copy(conninfo);
  char* err = nullptr;
  ConnInfoPtr opts(PQconninfoParse(copy.c_str(), &err));
  // libpq's parse error may quote the input, so it is never shown.
  if (err != nullptr) PQfreemem(err);
  return opts;
}

bool IsUrl(std::string_view s) {
  return s.starts_with("postgresql://") || s.starts_with("postgres://");
}

// Replaces the value of every "password=" query parameter of a URL.
std::string RedactUrlQuery(std::string url) {
  size_t q = url.find('?');
  while (q != std::string::npos) {
    size_t key = q + 1;
    if (url.compare(key, 9, "password=") == 0) {
      size_t start = key + 9;
      size_t end = url.find('&', start);
      if (end == std::string::npos) end = url.size();
      url.replace(start, end - start, kRedacted);
    }
    q = url.find('&', key);
  }
  return url;
}

}  // namespace

void RegisterSecret(std::string_view secret) {
  if (secret.size() < 4) return;
  auto& secrets = Secrets();
  if (std::find(secrets.begin(), secrets.end(), secret) == secrets.end()) {
    secrets.emplace_back(secret);
    // Longest first, so a secret that contains another is replaced whole.
    std::sort(secrets.begin(), secrets.end(),
              [](const std::string& a, const std::string& b) {
                return a.size() > b.size();
              });
  }
}

void ClearSecrets() { Secrets().clear(); }

std::string Scrub(std::string_view text) {
  std::string out(text);
  for (const std::string& secret : Secrets()) {
    size_t pos = 0;
    while ((pos = out.find(secret, pos)) != std::string::npos) {
      out.replace(pos, secret.size(), kRedacted);
      pos += kRedacted.size();
    }
  }
  return out;
}

std::string ConnInfoPassword(std::string_view conninfo) {
  ConnInfoPtr opts = ParseConnInfo(conninfo);
  if (!opts) return "";
  for (PQconninfoOption* o = opts.get(); o->keyword != nullptr; ++o) {
    if (std::string_view(o->keyword) == "password" && o->val != nullptr) {
      return o->val;
    }
  }
  return "";
}

std::string RedactConnInfo(std::string_view conninfo) {
  ConnInfoPtr opts = ParseConnInfo(conninfo);
  if (!opts) return "(unparseable connection string)";
  if (IsUrl(conninfo)) {
    std::string url(conninfo);
    size_t authority = url.find("://") + 3;
    size_t path = url.find_first_of("/?", authority);
    size_t at = url.rfind('@', path == std::string::npos ? url.size() : path);
    if (at != std::string::npos && at >= authority) {
      size_t colon = url.find(':', authority);
      if (colon != std::string::npos && colon < at) {
        url.replace(colon + 1, at - colon - 1, kRedacted);
      }
    }
    return RedactUrlQuery(std::move(url));
  }
  std::string out;
  for (PQconninfoOption* o = opts.get(); o->keyword != nullptr; ++o) {
    if (o->val == nullptr) continue;
    if (!out.empty()) out += ' ';
    out += o->keyword;
    out += '=';
    if (std::string_view(o->keyword) == "password") {
      out += kRedacted;
      continue;
    }
    std::string_view v(o->val);
    bool quote = v.empty() || v.find_first_of(" '\\") != std::string_view::npos;
    if (quote) out += '\'';
    for (char c : v) {
      if (c == '\'' || c == '\\') out += '\\';
      out += c;
    }
    if (quote) out += '\'';
  }
  return out;
}

}  // namespace awc
