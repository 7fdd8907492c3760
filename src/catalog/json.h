// Building small JSON documents (results, audit data, failures) with
// jansson, so every string is escaped correctly.
#ifndef AWC_CATALOG_JSON_H_
#define AWC_CATALOG_JSON_H_

#include <jansson.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace awc::catalog {

// A JSON object under construction; Dump() renders it compactly with keys
// in insertion order.
class JsonObject {
 public:
  JsonObject();
  ~JsonObject();
  JsonObject(const JsonObject&) = delete;
  JsonObject& operator=(const JsonObject&) = delete;

  JsonObject& Str(const char* key, std::string_view value);
  JsonObject& Int(const char* key, int64_t value);
  JsonObject& Num(const char* key, double value);
  JsonObject& Bool(const char* key, bool value);
  JsonObject& Null(const char* key);
  JsonObject& Strs(const char* key, const std::vector<std::string>& values);
  // Embeds another object (copied).
  JsonObject& Obj(const char* key, const JsonObject& value);

  std::string Dump() const;

 private:
  json_t* obj_;
};

}  // namespace awc::catalog

#endif  // AWC_CATALOG_JSON_H_
