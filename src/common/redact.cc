#include "common/redact.h"

#include <libpq-fe.h>

#include <algorithm>
#include <memory>
#include <vector>

namespace awc {
namespace {

// Shorter secrets are not searched for in text: they would match anywhere.
constexpr size_t kMinSecretSize = 4;

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

// Options whose values are secrets.
bool IsSecretOption(std::string_view keyword) {
  return keyword == "password" || keyword == "sslpassword";
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// %XX-decodes like libpq does for URL parts; bad escapes are kept as is.
std::string PercentDecode(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size() && HexValue(s[i + 1]) >= 0 &&
        HexValue(s[i + 2]) >= 0) {
      out += static_cast<char>(HexValue(s[i + 1]) * 16 + HexValue(s[i + 2]));
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

// Replaces the value of every secret query parameter of a URL ("password",
// "sslpassword", also when the key is percent-encoded as libpq allows).
std::string RedactUrlQuery(std::string url, size_t from) {
  size_t q = url.find('?', from);
  while (q != std::string::npos) {
    size_t key = q + 1;
    size_t end = url.find('&', key);
    if (end == std::string::npos) end = url.size();
    size_t eq = url.find('=', key);
    if (eq != std::string::npos && eq + 1 < end &&
        IsSecretOption(
            PercentDecode(std::string_view(url).substr(key, eq - key)))) {
      url.replace(eq + 1, end - eq - 1, kRedacted);
      end = eq + 1 + kRedacted.size();
    }
    q = end < url.size() ? end : std::string::npos;
  }
  return url;
}

// Returns the URL with the password of its user info and its secret query
// parameters replaced. libpq ends the user info at the first '@' before the
// first '/'; operators also write unencoded passwords holding '/', '?' or
// '@' (base64 keys), which libpq then misreads but -t must still not show.
// So the user info is taken to end at the last '@' before the query that
// follows the first '@': at least what libpq reads, never less.
std::string RedactUrl(std::string url) {
  size_t authority = url.find("://") + 3;
  size_t first_at = url.find('@', authority);
  if (first_at != std::string::npos) {
    size_t query = url.find('?', first_at);
    size_t at = url.rfind('@', query == std::string::npos ? url.size() : query);
    size_t colon = url.find(':', authority);
    if (colon != std::string::npos && colon + 1 < at) {
      url.replace(colon + 1, at - colon - 1, kRedacted);
    }
  }
  // With the password gone, the first '?' starts the query.
  return RedactUrlQuery(std::move(url), authority);
}

// The values of the secret options libpq reads from `opts`.
std::vector<std::string> SecretValues(const PQconninfoOption* opts) {
  std::vector<std::string> out;
  for (const PQconninfoOption* o = opts; o->keyword != nullptr; ++o) {
    if (IsSecretOption(o->keyword) && o->val != nullptr && *o->val != 0 &&
        std::string_view(o->val) != kRedacted) {
      out.emplace_back(o->val);
    }
  }
  return out;
}

// True when libpq reads no secret from `redacted` and it shows none of the
// original's `secrets`, also percent-encoded. Secrets shorter than a
// registered one (RegisterSecret) are not searched for: one or two
// characters occur in any host name.
bool ShowsNoSecret(const std::string& redacted,
                   const std::vector<std::string>& secrets) {
  ConnInfoPtr check = ParseConnInfo(redacted);
  if (check == nullptr || !SecretValues(check.get()).empty()) return false;
  std::string decoded = PercentDecode(redacted);
  for (const std::string& secret : secrets) {
    if (secret.size() < kMinSecretSize) continue;
    if (redacted.find(secret) != std::string::npos ||
        decoded.find(secret) != std::string::npos) {
      return false;
    }
  }
  return true;
}

}  // namespace

void RegisterSecret(std::string_view secret) {
  if (secret.size() < kMinSecretSize) return;
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
    // Where the user info ends and the query starts is ambiguous when a
    // password holds '?' or '@', or a query value holds '@'. Secret query
    // parameters are therefore redacted both as the original reads and as
    // what is left after the user info's password is gone.
    size_t authority = conninfo.find("://") + 3;
    std::string url =
        RedactUrl(RedactUrlQuery(std::string(conninfo), authority));
    // Safety net: the result shows none of the original's secrets, and
    // libpq reads none from it.
    if (ShowsNoSecret(url, SecretValues(opts.get()))) return url;
    return std::string(conninfo.substr(0, authority)) +
           std::string(kRedacted);
  }
  std::string out;
  for (PQconninfoOption* o = opts.get(); o->keyword != nullptr; ++o) {
    if (o->val == nullptr) continue;
    if (!out.empty()) out += ' ';
    out += o->keyword;
    out += '=';
    if (IsSecretOption(o->keyword)) {
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
