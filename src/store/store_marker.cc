#include "store/store_marker.h"

#include <jansson.h>

#include "common/json.h"

namespace awc::store {
namespace {

constexpr const char* kFormat = "awc-store";

// OK for a marker this build can use.
Status ParseMarker(std::string_view content, const std::string& url) {
  const std::string name(ObjectStore::kMarkerName);
  Status malformed = Status::FailedPrecondition(
      url + ": its " + name + " marker is malformed (expected {\"format\":\"" +
      kFormat + "\",\"version\":" + std::to_string(kStoreFormatVersion) + "})");
  Result<JsonPtr> doc = ParseJson(content);
  if (!doc.ok() || !json_is_object(doc->get())) return malformed;
  const json_t* format = json_object_get(doc->get(), "format");
  const json_t* version = json_object_get(doc->get(), "version");
  if (!json_is_string(format) ||
      std::string_view(json_string_value(format)) != kFormat ||
      !json_is_integer(version)) {
    return malformed;
  }
  json_int_t v = json_integer_value(version);
  if (v != kStoreFormatVersion) {
    return Status::FailedPrecondition(
        url + " has store format version " + std::to_string(v) +
        ", which this release of awc-worker does not know (it knows version " +
        std::to_string(kStoreFormatVersion) + ")");
  }
  return Status::OK();
}

// The marker's content, kNotFound when there is none.
Result<std::string> ReadMarker(ObjectStore& store, const std::string& url) {
  Result<std::string> marker = store.ReadMarker();
  if (marker.ok() || marker.status().IsNotFound()) return marker;
  return marker.status().WithContext(url + ": cannot read its " +
                                     std::string(ObjectStore::kMarkerName) +
                                     " marker");
}

}  // namespace

std::string StoreMarkerContent() {
  JsonObject o;
  o.Str("format", kFormat).Int("version", kStoreFormatVersion);
  return o.Dump() + "\n";
}

Status NotInitialized(const std::string& url, std::string_view why) {
  return Status::FailedPrecondition(
      url + " is not an initialised awc store (" + std::string(why) +
      "); check the URL, or create the store with \"awcctl store init " + url +
      "\"");
}

Status CheckStoreMarker(ObjectStore& store, const std::string& url) {
  if (std::string_view(store.scheme()) == "memory") return Status::OK();
  Result<std::string> marker = ReadMarker(store, url);
  if (marker.status().IsNotFound()) {
    return NotInitialized(
        url, "no " + std::string(ObjectStore::kMarkerName) + " marker");
  }
  if (!marker.ok()) return marker.status();
  return ParseMarker(*marker, url);
}

Result<bool> WriteStoreMarker(ObjectStore& store, const std::string& url) {
  Result<std::string> marker = ReadMarker(store, url);
  if (marker.ok()) {
    AWC_RETURN_IF_ERROR(ParseMarker(*marker, url));
    return false;
  }
  if (!marker.status().IsNotFound()) return marker.status();
  AWC_RETURN_IF_ERROR(store.WriteMarker(StoreMarkerContent()).WithContext(url));
  return true;
}

}  // namespace awc::store
