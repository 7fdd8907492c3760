// What awcctl prints: aligned text tables for people, one JSON document per
// call for scripts (--json), both from the same cells.
//
// Contract:
//  - A Cell has a text form (tables) and a JSON form: Text -> string,
//    Int -> integer, Secs -> number of seconds (shown as an age: 42s,
//    3m20s, 2h05m, 3d04h), Bool -> true/false (shown yes/no), None -> null
//    (shown "-").
//  - Table::Text(): a header of upper-case names, then one line per row,
//    columns two spaces apart, numbers right-aligned, the last column not
//    padded. A cell's text is shown as OneLine() shows it, so a row is one
//    line.
//  - Table::Json(): an array of objects, keys in column order.
//  - Everything printed passes through the secret scrubber (redact.h);
//    JSON strings are valid UTF-8 (invalid bytes become U+FFFD).
#ifndef AWC_CLI_OUTPUT_H_
#define AWC_CLI_OUTPUT_H_

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "common/json.h"

namespace awc::cli {

class Cell {
 public:
  static Cell Text(std::string_view s);
  static Cell Int(int64_t v);
  static Cell Secs(double secs);
  static Cell Bool(bool b);
  static Cell None();
  // A JSON document (its text, as the database gives it), shown in a
  // table as `shown` and in --json as the document itself; None when
  // `json` is not a document.
  static Cell Document(const std::string& json, std::string_view shown);

  std::string Shown() const;  // the table's text
  JsonPtr Json() const;
  bool right_aligned() const {
    return type_ == Type::kInt || type_ == Type::kSecs;
  }

 private:
  enum class Type { kText, kInt, kSecs, kBool, kNone, kDocument };
  Type type_ = Type::kNone;
  std::string text_;
  std::string shown_;  // kDocument's text in a table
  int64_t i_ = 0;
  double d_ = 0;
};

// A duration as a table shows it: 0.4s, 42s, 3m20s, 2h05m, 3d04h.
std::string FormatAge(double secs);

class Table {
 public:
  struct Column {
    std::string header;  // "RUN_AT"
    std::string key;     // "run_at"
  };
  explicit Table(std::vector<Column> columns);

  // `cells` has one cell per column.
  void Add(std::vector<Cell> cells);
  size_t size() const { return rows_.size(); }

  std::string Text() const;
  JsonPtr Json() const;

 private:
  std::vector<Column> columns_;
  std::vector<std::vector<Cell>> rows_;
};

// Lines of "name:  value", names aligned; one record (awcctl jobs show).
class Record {
 public:
  Record& Add(std::string label, std::string key, Cell value);
  std::string Text() const;
  JsonPtr Json() const;  // an object, keys in order

 private:
  struct Field {
    std::string label;
    std::string key;
    Cell value;
  };
  std::vector<Field> fields_;
};

// `s` as one line of text for a terminal: each control character (below
// 0x20, 0x7f, and U+0080 to U+009F, which terminals also read as commands)
// becomes a space and bytes that are not UTF-8 become U+FFFD, so that text
// from the database or from the command line can neither break a line nor
// drive the terminal. Tables show their cells so; every line awcctl prints
// that quotes such text passes it through this.
std::string OneLine(std::string_view s);

// A JSON string of `s`, scrubbed and valid UTF-8.
JsonPtr JsonText(std::string_view s);

// Significant digits of JSON numbers: seconds to the millisecond for
// centuries, without binary noise (1.235, not 1.2350000000000001).
inline constexpr int kJsonDigits = 12;

// Writes `doc` as indented JSON and a newline.
void PrintJson(FILE* out, const json_t* doc);
// Writes `text` scrubbed of secrets.
void PrintText(FILE* out, std::string_view text);

}  // namespace awc::cli

#endif  // AWC_CLI_OUTPUT_H_
