// JSON with jansson: strict parsing and building small documents.
//
// ParseJson rejects duplicate keys and never quotes its input in an error
// (jansson's own messages do, and the input may be a payload or a manifest
// that must not be echoed). JsonObject builds results, audit data and
// failure records with every string escaped, keys in insertion order.
#ifndef AWC_COMMON_JSON_H_
#define AWC_COMMON_JSON_H_

#include <jansson.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace awc {

struct JsonDeleter {
  void operator()(json_t* j) const { json_decref(j); }
};
using JsonPtr = std::unique_ptr<json_t, JsonDeleter>;

// Parses any JSON value. `allow_nul` lets NUL through inside strings (for
// callers that reject it with a message of their own). Errors are
// kInvalidArgument: "not valid JSON (<what> at line L, column C)".
Result<JsonPtr> ParseJson(std::string_view text, bool allow_nul = false);

// Returns `s` with every sequence that is not well-formed UTF-8 (stray or
// truncated bytes, overlong forms, surrogates, > U+10FFFF) replaced by
// U+FFFD. jansson refuses such strings, which would drop the whole value.
std::string ValidUtf8(std::string_view s);

// A JSON object under construction.
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
  JsonObject& Ints(const char* key, const std::vector<int64_t>& values);
  // Embeds a copy of another object.
  JsonObject& Obj(const char* key, const JsonObject& value);

  // Compact text, keys in insertion order.
  std::string Dump() const;

 private:
  json_t* obj_;
};

}  // namespace awc

#endif  // AWC_COMMON_JSON_H_
