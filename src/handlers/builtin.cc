// The built-in kinds, listed once: RegisterBuiltinHandlers() registers
// them and BuiltinKinds() names them from the same list, so a kind cannot
// be registered without being named or named without being registered.
#include <array>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <vector>

#include "handlers/gc_sweep.h"
#include "handlers/payload.h"
#include "handlers/registry.h"
#include "handlers/snapshot_retain.h"
#include "handlers/snapshot_scrub.h"
#include "handlers/snapshot_validate.h"
#include "handlers/store_reconcile.h"
#include "handlers/workspace_expire.h"

namespace awc::handlers {
namespace {

// One kind: its name, its payload's decoder, its handler, and whether it
// is background work (maintenance nobody waits for, which may take hours
// under the read budget; docs/queue.md, "Background work").
template <typename P>
struct Builtin {
  using Payload = P;
  const char* kind;
  Registry::Decoder<P> decode;
  queue::Outcome (*run)(JobContext&, const P&);
  bool background = false;
};

// Every built-in kind (docs/handlers.md, "Handlers"). Its payload type
// is deduced from the decoder.
constexpr std::tuple kBuiltins{
    Builtin{kSnapshotValidateKind, DecodeSnapshotPayload, ValidateSnapshot},
    Builtin{kSnapshotScrubKind, DecodeScrubPayload, ScrubSnapshot, true},
    Builtin{kWorkspaceExpireKind, DecodeWorkspacePayload, ExpireWorkspace},
    Builtin{kSnapshotRetainKind, DecodeSnapshotPayload, RetainSnapshot},
    Builtin{kGcSweepKind, DecodeTenantPayload, SweepTenant, true},
    Builtin{kStoreReconcileKind, DecodeTenantPayload, ReconcileTenant, true},
};

constexpr auto kKinds = std::apply(
    [](const auto&... b) {
      return std::array<std::string_view, sizeof...(b)>{b.kind...};
    },
    kBuiltins);

}  // namespace

void RegisterBuiltinHandlers(Registry& registry) {
  std::apply(
      [&registry](const auto&... b) {
        (registry.Add<typename std::decay_t<decltype(b)>::Payload>(
             b.kind, b.decode, b.run),
         ...);
      },
      kBuiltins);
}

std::span<const std::string_view> BuiltinKinds() { return kKinds; }

std::vector<std::string> BackgroundKinds() {
  std::vector<std::string> out;
  std::apply(
      [&out](const auto&... b) {
        ((b.background ? (void)out.emplace_back(b.kind) : (void)0), ...);
      },
      kBuiltins);
  return out;
}

}  // namespace awc::handlers
