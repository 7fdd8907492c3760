// Payload decoders, one per payload shape (docs/handlers.md, "Handlers").
//
// A payload must be a JSON object (no duplicate keys) with the keys its
// kind needs, each of the expected type: ids are JSON integers >= 1 (not
// strings, not floats, not booleans), tenant ids match the tenant syntax of
// digest/ids.h. A key the decoder does not know is a newer producer's (a
// later release's scheduler, on a fleet upgraded host by host) and is
// ignored (docs/operations.md, "Rolling upgrades"). Anything else is an
// InvalidArgument whose message names the key but never echoes the payload
// (ParseJson's errors give the position, not jansson's text, which quotes
// the input).
#ifndef AWC_HANDLERS_PAYLOAD_H_
#define AWC_HANDLERS_PAYLOAD_H_

#include <jansson.h>

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>

#include "common/json.h"
#include "common/status.h"

namespace awc::handlers {

// Reads one object strictly; each accessor reports the key it failed on.
class PayloadReader {
 public:
  explicit PayloadReader(const json_t* payload) : payload_(payload) {}

  // What an object's keys outside `known` are.
  enum class OtherKeys {
    kIgnored,  // a newer producer's fields (job payloads)
    // A mistake (an unexpected key is named only when it is a plain
    // [a-z0-9_] identifier): for documents whose unknown keys could change
    // what the known ones mean, such as a retention policy, where ignoring
    // a newer rule would release what it keeps.
    kRefused,
  };
  // The payload is an object; its keys outside `known` are as `other` says.
  Status ExpectObject(std::initializer_list<std::string_view> known,
                      OtherKeys other = OtherKeys::kIgnored) const;
  // A required integer >= `min`.
  Result<int64_t> Int(const char* key, int64_t min) const;
  // An optional integer >= `min`; `fallback` when absent.
  Result<int64_t> OptionalInt(const char* key, int64_t min,
                              int64_t fallback) const;
  // A required tenant id.
  Result<std::string> TenantId(const char* key) const;

 private:
  const json_t* payload_;
};

struct SnapshotPayload {
  int64_t snapshot_id;
};
// snapshot_scrub: objects verified less than reverify_after_secs ago are
// not read again (0: read every object).
struct ScrubPayload {
  int64_t snapshot_id;
  int64_t reverify_after_secs = 0;
};
struct WorkspacePayload {
  int64_t workspace_id;
};
struct TenantPayload {
  std::string tenant_id;
};

Result<SnapshotPayload> DecodeSnapshotPayload(const json_t* payload);
Result<ScrubPayload> DecodeScrubPayload(const json_t* payload);
Result<WorkspacePayload> DecodeWorkspacePayload(const json_t* payload);
Result<TenantPayload> DecodeTenantPayload(const json_t* payload);

}  // namespace awc::handlers

#endif  // AWC_HANDLERS_PAYLOAD_H_
