#include "common/json.h"

#include <cstdlib>

namespace awc {
namespace {

// What went wrong, in words of our own: jansson's messages quote the
// offending token ("... near 's3cret'"), and a payload is never echoed.
const char* JsonErrorWhat(const json_error_t& err) {
  switch (json_error_code(&err)) {
    case json_error_premature_end_of_input:
      return "unexpected end of input";
    case json_error_end_of_input_expected:
      return "unexpected data after the value";
    case json_error_duplicate_key:
      return "duplicate key";
    case json_error_invalid_utf8:
      return "invalid UTF-8";
    case json_error_null_character:
    case json_error_null_byte_in_key:
      return "NUL character";
    case json_error_numeric_overflow:
      return "number out of range";
    case json_error_stack_overflow:
      return "nested too deeply";
    case json_error_out_of_memory:
      return "out of memory";
    default:
      return "syntax error";
  }
}

}  // namespace

Result<JsonPtr> ParseJson(std::string_view text, bool allow_nul) {
  json_error_t err;
  size_t flags = JSON_REJECT_DUPLICATES | JSON_DECODE_ANY;
  if (allow_nul) flags |= JSON_ALLOW_NUL;
  json_t* j = json_loadb(text.data(), text.size(), flags, &err);
  if (j == nullptr) {
    return Status::InvalidArgument(std::string("not valid JSON (") +
                                   JsonErrorWhat(err) + " at line " +
                                   std::to_string(err.line) + ", column " +
                                   std::to_string(err.column) + ")");
  }
  return JsonPtr(j);
}

std::string ValidUtf8(std::string_view s) {
  size_t i = 0;
  while (i < s.size() && static_cast<unsigned char>(s[i]) < 0x80) ++i;
  if (i == s.size()) return std::string(s);
  std::string out(s.substr(0, i));
  while (i < s.size()) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      out += static_cast<char>(c);
      ++i;
      continue;
    }
    size_t len = 0;
    uint32_t cp = 0, min = 0;
    if ((c & 0xE0) == 0xC0) {
      len = 2, cp = c & 0x1F, min = 0x80;
    } else if ((c & 0xF0) == 0xE0) {
      len = 3, cp = c & 0x0F, min = 0x800;
    } else if ((c & 0xF8) == 0xF0) {
      len = 4, cp = c & 0x07, min = 0x10000;
    }
    size_t n = 1;
    while (len != 0 && n < len && i + n < s.size() &&
           (static_cast<unsigned char>(s[i + n]) & 0xC0) == 0x80) {
      cp = (cp << 6) | (static_cast<unsigned char>(s[i + n]) & 0x3F);
      ++n;
    }
    if (len != 0 && n == len && cp >= min && cp <= 0x10FFFF &&
        !(cp >= 0xD800 && cp <= 0xDFFF)) {
      out.append(s.substr(i, len));
    } else {
      out += "\xEF\xBF\xBD";  // U+FFFD
    }
    i += n;
  }
  return out;
}

JsonObject::JsonObject() : obj_(json_object()) {}
JsonObject::~JsonObject() { json_decref(obj_); }

JsonObject& JsonObject::Str(const char* key, std::string_view value) {
  json_object_set_new(obj_, key, json_stringn(value.data(), value.size()));
  return *this;
}

JsonObject& JsonObject::Int(const char* key, int64_t value) {
  json_object_set_new(obj_, key, json_integer(value));
  return *this;
}

JsonObject& JsonObject::Num(const char* key, double value) {
  json_object_set_new(obj_, key, json_real(value));
  return *this;
}

JsonObject& JsonObject::Bool(const char* key, bool value) {
  json_object_set_new(obj_, key, json_boolean(value));
  return *this;
}

JsonObject& JsonObject::Null(const char* key) {
  json_object_set_new(obj_, key, json_null());
  return *this;
}

JsonObject& JsonObject::Strs(const char* key,
                             const std::vector<std::string>& values) {
  json_t* arr = json_array();
  for (const std::string& v : values) {
    json_array_append_new(arr, json_stringn(v.data(), v.size()));
  }
  json_object_set_new(obj_, key, arr);
  return *this;
}

JsonObject& JsonObject::Ints(const char* key,
                             const std::vector<int64_t>& values) {
  json_t* arr = json_array();
  for (int64_t v : values) json_array_append_new(arr, json_integer(v));
  json_object_set_new(obj_, key, arr);
  return *this;
}

JsonObject& JsonObject::Obj(const char* key, const JsonObject& value) {
  json_object_set_new(obj_, key, json_deep_copy(value.obj_));
  return *this;
}

std::string JsonObject::Dump() const {
  char* text = json_dumps(obj_, JSON_COMPACT | JSON_PRESERVE_ORDER);
  std::string out = text != nullptr ? text : "{}";
  free(text);
  return out;
}

}  // namespace awc
