// The job payload path of the worker: strict JSON parsing, then each
// payload decoder. Never crashes; an error never quotes the payload.
#include <string>

#include "common/json.h"
#include "fuzz/fuzz_util.h"
#include "handlers/payload.h"

namespace {

// A refusal may name a key of the payload (a plain identifier of at most
// 64 bytes) but echoes nothing else of it, so its length is bounded
// whatever the payload's.
constexpr size_t kMaxMessage = 200;

template <typename Decoded>
void Check(const awc::Result<Decoded>& r) {
  if (r.ok()) return;
  awc::fuzz::Require(r.status().IsInvalidArgument(),
                     "a refused payload is kInvalidArgument");
  awc::fuzz::Require(r.status().message().size() <= kMaxMessage,
                     "the message does not echo the payload");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text = awc::fuzz::AsText(data, size);
  awc::Result<awc::JsonPtr> json = awc::ParseJson(text);
  Check(json);
  if (!json.ok()) return 0;
  const json_t* payload = json->get();
  Check(awc::handlers::DecodeSnapshotPayload(payload));
  Check(awc::handlers::DecodeWorkspacePayload(payload));
  Check(awc::handlers::DecodeTenantPayload(payload));
  return 0;
}
