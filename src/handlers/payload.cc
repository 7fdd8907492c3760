#include "handlers/payload.h"

#include "digest/ids.h"

namespace awc::handlers {

namespace {

// A key worth naming in an error: short and plainly an identifier. Anything
// else is producer text that is not echoed.
bool IsPlainKey(std::string_view key) {
  if (key.empty() || key.size() > 64) return false;
  for (char c : key) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) {
      return false;
    }
  }
  return true;
}

}  // namespace

Status PayloadReader::ExpectObject(
    std::initializer_list<std::string_view> allowed, OtherKeys other) const {
  if (!json_is_object(payload_)) {
    return Status::InvalidArgument("payload is not a JSON object");
  }
  if (other == OtherKeys::kIgnored) return Status::OK();
  const char* key;
  json_t* value;
  json_object_foreach(const_cast<json_t*>(payload_), key, value) {
    bool known = false;
    for (std::string_view a : allowed) known |= a == key;
    if (!known) {
      if (!IsPlainKey(key)) {
        return Status::InvalidArgument("payload has an unexpected key");
      }
      return Status::InvalidArgument("payload has unexpected key \"" +
                                     std::string(key) + "\"");
    }
  }
  return Status::OK();
}

Result<int64_t> PayloadReader::Int(const char* key, int64_t min) const {
  const json_t* v = json_object_get(payload_, key);
  if (v == nullptr) {
    return Status::InvalidArgument("payload lacks \"" + std::string(key) +
                                   "\"");
  }
  if (!json_is_integer(v)) {
    return Status::InvalidArgument("payload key \"" + std::string(key) +
                                   "\" is not an integer");
  }
  json_int_t n = json_integer_value(v);
  if (n < min) {
    return Status::InvalidArgument("payload key \"" + std::string(key) +
                                   "\" must be >= " + std::to_string(min));
  }
  return static_cast<int64_t>(n);
}

Result<int64_t> PayloadReader::OptionalInt(const char* key, int64_t min,
                                           int64_t fallback) const {
  if (json_object_get(payload_, key) == nullptr) return fallback;
  return Int(key, min);
}

Result<std::string> PayloadReader::TenantId(const char* key) const {
  const json_t* v = json_object_get(payload_, key);
  if (v == nullptr) {
    return Status::InvalidArgument("payload lacks \"" + std::string(key) +
                                   "\"");
  }
  // With its length: an embedded NUL must not cut "t1\0x" down to "t1".
  std::string_view id;
  if (json_is_string(v)) {
    id = std::string_view(json_string_value(v), json_string_length(v));
  }
  if (!digest::IsValidTenantId(id)) {
    return Status::InvalidArgument(
        "payload key \"" + std::string(key) +
        "\" is not a tenant id (^[a-z0-9][a-z0-9_-]{0,62}$)");
  }
  return std::string(id);
}

Result<SnapshotPayload> DecodeSnapshotPayload(const json_t* payload) {
  PayloadReader r(payload);
  AWC_RETURN_IF_ERROR(r.ExpectObject({"snapshot_id"}));
  AWC_ASSIGN_OR_RETURN(int64_t id, r.Int("snapshot_id", 1));
  return SnapshotPayload{id};
}

Result<ScrubPayload> DecodeScrubPayload(const json_t* payload) {
  PayloadReader r(payload);
  AWC_RETURN_IF_ERROR(r.ExpectObject({"snapshot_id", "reverify_after_secs"}));
  AWC_ASSIGN_OR_RETURN(int64_t id, r.Int("snapshot_id", 1));
  AWC_ASSIGN_OR_RETURN(int64_t after,
                       r.OptionalInt("reverify_after_secs", 0, 0));
  return ScrubPayload{id, after};
}

Result<WorkspacePayload> DecodeWorkspacePayload(const json_t* payload) {
  PayloadReader r(payload);
  AWC_RETURN_IF_ERROR(r.ExpectObject({"workspace_id"}));
  AWC_ASSIGN_OR_RETURN(int64_t id, r.Int("workspace_id", 1));
  return WorkspacePayload{id};
}

Result<TenantPayload> DecodeTenantPayload(const json_t* payload) {
  PayloadReader r(payload);
  AWC_RETURN_IF_ERROR(r.ExpectObject({"tenant_id"}));
  AWC_ASSIGN_OR_RETURN(std::string id, r.TenantId("tenant_id"));
  return TenantPayload{std::move(id)};
}

}  // namespace awc::handlers
