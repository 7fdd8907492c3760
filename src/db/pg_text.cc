// The text forms of the libpq wrapper (db/pg.h): the one line a libpq
// message becomes in a Status, and array literals for text parameters.
// They need no server (tested by db/pg_text_test.cc).
#include <string>
#include <string_view>
#include <vector>

#include "common/redact.h"
#include "db/pg.h"

namespace awc::db {

namespace {

bool IsControl(char c) {
  return static_cast<unsigned char>(c) < 0x20 || c == 0x7f;
}

// How the next of libpq's lines joins the text so far: a line that starts
// in lower case goes on the sentence libpq wrapped; after a sentence's end
// the next sentence follows; otherwise the line is a clause of its own (a
// hint, DETAIL, LINE), after "; ".
const char* Joint(const std::string& so_far, char next) {
  char last = so_far.back();
  if ((next >= 'a' && next <= 'z') ||
      std::string_view(".?!:;,").find(last) != std::string_view::npos) {
    return " ";
  }
  return "; ";
}

}  // namespace

std::string CleanMessage(const char* libpq_message) {
  std::string out;
  const char* p = libpq_message ? libpq_message : "";
  // Line by line; blanks and control characters inside a line are one space.
  while (*p != '\0') {
    const char* end = p;
    while (*end != '\0' && *end != '\n') ++end;
    std::string line;
    bool space = false;
    for (const char* c = p; c < end; ++c) {
      if (*c == ' ' || IsControl(*c)) {
        space = !line.empty();
        continue;
      }
      if (space) line += ' ';
      space = false;
      line += *c;
    }
    if (!line.empty()) {
      if (!out.empty()) out += Joint(out, line.front());
      out += line;
    }
    p = *end == '\n' ? end + 1 : end;
  }
  return Scrub(out);
}

std::string ArrayLiteral(const std::vector<std::string>& values) {
  std::string out = "{";
  for (size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out += ',';
    out += '"';
    for (char c : values[i]) {
      if (c == '"' || c == '\\') out += '\\';
      out += c;
    }
    out += '"';
  }
  out += '}';
  return out;
}

std::string ArrayLiteral(const std::vector<uint64_t>& values) {
  std::vector<std::string> text;
  text.reserve(values.size());
  for (uint64_t v : values) text.push_back(std::to_string(v));
  return ArrayLiteral(text);
}

std::string ArrayLiteral(const std::vector<bool>& values) {
  std::string out = "{";
  for (size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out += ',';
    out += values[i] ? 't' : 'f';
  }
  out += '}';
  return out;
}

}  // namespace awc::db
