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
