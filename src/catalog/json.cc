#include "catalog/json.h"

#include <cstdlib>

namespace awc::catalog {

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

}  // namespace awc::catalog
