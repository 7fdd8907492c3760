#include "http/query_string.h"

namespace awc::http {
namespace {

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

namespace {

std::string Decode(std::string_view text, bool plus_is_space) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '+' && plus_is_space) {
      out += ' ';
    } else if (c == '%' && i + 2 < text.size() && HexValue(text[i + 1]) >= 0 &&
               HexValue(text[i + 2]) >= 0) {
      out +=
          static_cast<char>(HexValue(text[i + 1]) * 16 + HexValue(text[i + 2]));
      i += 2;
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace

std::string PercentDecode(std::string_view text) { return Decode(text, true); }

std::string DecodePath(std::string_view path) { return Decode(path, false); }

QueryArgs ParseQueryString(std::string_view query) {
  QueryArgs out;
  size_t at = 0;
  while (at <= query.size()) {
    size_t amp = query.find('&', at);
    if (amp == std::string_view::npos) amp = query.size();
    std::string_view piece = query.substr(at, amp - at);
    if (!piece.empty()) {
      size_t eq = piece.find('=');
      if (eq == std::string_view::npos) {
        out.emplace_back(PercentDecode(piece), "");
      } else {
        out.emplace_back(PercentDecode(piece.substr(0, eq)),
                         PercentDecode(piece.substr(eq + 1)));
      }
    }
    at = amp + 1;
  }
  return out;
}

std::string_view QueryOf(std::string_view target) {
  size_t q = target.find('?');
  if (q == std::string_view::npos) return {};
  std::string_view query = target.substr(q + 1);
  size_t hash = query.find('#');
  return hash == std::string_view::npos ? query : query.substr(0, hash);
}

}  // namespace awc::http
