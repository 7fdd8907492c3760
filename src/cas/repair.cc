#include "cas/repair.h"

#include <memory>
#include <string>

#include "common/env.h"
#include "digest/sha256.h"

namespace awc::cas {

const char* RepairCopyName(RepairCopy r) {
  switch (r) {
    case RepairCopy::kRepaired:
      return "repaired";
    case RepairCopy::kAbsent:
      return "absent";
    case RepairCopy::kCorrupt:
      return "corrupt";
    case RepairCopy::kBlocked:
      break;
  }
  return "blocked";
}

Result<RepairCopy> CopyVerified(store::ObjectStore& repair,
                                store::ObjectStore& primary,
                                const store::ObjectKey& key,
                                std::optional<uint64_t> size,
                                const SpillOptions& spill) {
  SpillFiles files(spill);
  std::string path = files.NewPath();
  AWC_ASSIGN_OR_RETURN(
      std::unique_ptr<WritableFile> out,
      files.env()->NewWritableFile(path, Env::CreateMode::kExclusive));
  struct Removed {
    SpillFiles& files;
    const std::string& path;
    ~Removed() { files.Remove(path); }
  } removed{files, path};

  digest::Sha256 hash;
  uint64_t got = 0;
  bool too_long = false;
  Status write;
  Status read = repair.Get(key, [&](std::string_view chunk) -> Status {
    got += chunk.size();
    if (size && got > *size) {
      too_long = true;
      return Status::Corruption("longer than declared");
    }
    hash.Update(chunk);
    write = out->Append(chunk);
    return write;
  });
  if (!write.ok()) return write;
  if (too_long) return RepairCopy::kCorrupt;
  if (read.IsNotFound()) return RepairCopy::kAbsent;
  if (read.IsCorruption()) return RepairCopy::kCorrupt;
  AWC_RETURN_IF_ERROR(read);
  AWC_RETURN_IF_ERROR(out->Sync());
  AWC_RETURN_IF_ERROR(out->Close());
  if ((size && got != *size) || "sha256:" + hash.FinishHex() != key.digest) {
    return RepairCopy::kCorrupt;
  }
  Status put = primary.PutFile(key, path);
  // The file was checked above; a mismatch now means it changed under us.
  if (put.IsCorruption()) return RepairCopy::kCorrupt;
  if (put.IsFailedPrecondition()) return RepairCopy::kBlocked;
  AWC_RETURN_IF_ERROR(put);
  return RepairCopy::kRepaired;
}

}  // namespace awc::cas
