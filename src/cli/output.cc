#include "cli/output.h"

#include <cmath>
#include <cstdlib>

#include "common/redact.h"

namespace awc::cli {
namespace {

std::string Pad(const std::string& s, size_t width, bool right) {
  if (s.size() >= width) return s;
  std::string fill(width - s.size(), ' ');
  return right ? fill + s : s + fill;
}

}  // namespace

Cell Cell::Text(std::string_view s) {
  Cell c;
  c.type_ = Type::kText;
  c.text_ = s;
  return c;
}

Cell Cell::Int(int64_t v) {
  Cell c;
  c.type_ = Type::kInt;
  c.i_ = v;
  return c;
}

Cell Cell::Secs(double secs) {
  Cell c;
  c.type_ = Type::kSecs;
  c.d_ = secs;
  return c;
}

Cell Cell::Bool(bool b) {
  Cell c;
  c.type_ = Type::kBool;
  c.i_ = b ? 1 : 0;
  return c;
}

Cell Cell::None() { return Cell(); }

Cell Cell::Document(const std::string& json, std::string_view shown) {
  if (!ParseJson(json).ok()) return None();
  Cell c;
  c.type_ = Type::kDocument;
  c.text_ = json;
  c.shown_ = shown;
  return c;
}

std::string Cell::Shown() const {
  switch (type_) {
    case Type::kText:
      return OneLine(Scrub(text_));
    case Type::kInt:
      return std::to_string(i_);
    case Type::kSecs:
      return FormatAge(d_);
    case Type::kBool:
      return i_ != 0 ? "yes" : "no";
    case Type::kDocument:
      return OneLine(Scrub(shown_));
    case Type::kNone:
      break;
  }
  return "-";
}

JsonPtr Cell::Json() const {
  switch (type_) {
    case Type::kText:
      return JsonText(text_);
    case Type::kInt:
      return JsonPtr(json_integer(i_));
    case Type::kSecs:
      // Milliseconds are enough, and keep the text short.
      return JsonPtr(json_real(std::round(d_ * 1000) / 1000));
    case Type::kBool:
      return JsonPtr(json_boolean(i_ != 0));
    case Type::kDocument: {
      Result<JsonPtr> doc = ParseJson(text_);
      if (doc.ok()) return std::move(*doc);
      break;
    }
    case Type::kNone:
      break;
  }
  return JsonPtr(json_null());
}

std::string FormatAge(double secs) {
  if (!std::isfinite(secs) || secs < 0) secs = 0;
  char buf[32];
  if (secs < 10) {
    snprintf(buf, sizeof buf, "%.1fs", secs);
    return buf;
  }
  long long s = std::llround(secs);
  if (s < 60) {
    snprintf(buf, sizeof buf, "%llds", s);
  } else if (s < 3600) {
    snprintf(buf, sizeof buf, "%lldm%02llds", s / 60, s % 60);
  } else if (s < 86400) {
    snprintf(buf, sizeof buf, "%lldh%02lldm", s / 3600, s % 3600 / 60);
  } else {
    snprintf(buf, sizeof buf, "%lldd%02lldh", s / 86400, s % 86400 / 3600);
  }
  return buf;
}

Table::Table(std::vector<Column> columns) : columns_(std::move(columns)) {}

void Table::Add(std::vector<Cell> cells) {
  cells.resize(columns_.size());
  rows_.push_back(std::move(cells));
}

std::string Table::Text() const {
  std::vector<std::vector<std::string>> shown;
  std::vector<size_t> width(columns_.size());
  std::vector<bool> right(columns_.size(), false);
  for (size_t c = 0; c < columns_.size(); ++c) {
    width[c] = columns_[c].header.size();
  }
  for (const auto& row : rows_) {
    std::vector<std::string> line;
    for (size_t c = 0; c < columns_.size(); ++c) {
      line.push_back(row[c].Shown());
      width[c] = std::max(width[c], line.back().size());
      if (row[c].right_aligned()) right[c] = true;
    }
    shown.push_back(std::move(line));
  }
  auto format = [&](const std::vector<std::string>& cells) {
    std::string out;
    for (size_t c = 0; c < cells.size(); ++c) {
      bool last = c + 1 == cells.size();
      if (c > 0) out += "  ";
      out += last && !right[c] ? cells[c] : Pad(cells[c], width[c], right[c]);
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out + "\n";
  };
  std::vector<std::string> header;
  for (const Column& col : columns_) header.push_back(col.header);
  std::string out = format(header);
  for (const auto& line : shown) out += format(line);
  return out;
}

JsonPtr Table::Json() const {
  JsonPtr arr(json_array());
  for (const auto& row : rows_) {
    json_t* obj = json_object();
    for (size_t c = 0; c < columns_.size(); ++c) {
      json_object_set_new(obj, columns_[c].key.c_str(),
                          row[c].Json().release());
    }
    json_array_append_new(arr.get(), obj);
  }
  return arr;
}

Record& Record::Add(std::string label, std::string key, Cell value) {
  fields_.push_back({std::move(label), std::move(key), std::move(value)});
  return *this;
}

std::string Record::Text() const {
  size_t width = 0;
  for (const Field& f : fields_) width = std::max(width, f.label.size() + 1);
  std::string out;
  for (const Field& f : fields_) {
    out += Pad(f.label + ":", width, false) + "  " + f.value.Shown() + "\n";
  }
  return out;
}

JsonPtr Record::Json() const {
  JsonPtr obj(json_object());
  for (const Field& f : fields_) {
    json_object_set_new(obj.get(), f.key.c_str(), f.value.Json().release());
  }
  return obj;
}

std::string OneLine(std::string_view s) {
  std::string valid = ValidUtf8(s);
  std::string out;
  out.reserve(valid.size());
  for (size_t i = 0; i < valid.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(valid[i]);
    if (c < 0x20 || c == 0x7f) {
      out += ' ';
    } else if (c == 0xc2 && i + 1 < valid.size() &&
               static_cast<unsigned char>(valid[i + 1]) <= 0x9f) {
      out += ' ';  // U+0080..U+009F, in UTF-8 0xc2 0x80..0x9f
      ++i;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

JsonPtr JsonText(std::string_view s) {
  std::string clean = ValidUtf8(Scrub(s));
  return JsonPtr(json_stringn(clean.data(), clean.size()));
}

void PrintJson(FILE* out, const json_t* doc) {
  char* text = json_dumps(doc, JSON_INDENT(2) | JSON_PRESERVE_ORDER |
                                   JSON_REAL_PRECISION(kJsonDigits));
  fprintf(out, "%s\n", text != nullptr ? text : "null");
  free(text);
}

void PrintText(FILE* out, std::string_view text) {
  std::string clean = Scrub(text);
  fwrite(clean.data(), 1, clean.size(), out);
}

}  // namespace awc::cli
