// Importing a directory tree into the store as a snapshot (awcctl import).
//
// Contract (the producer's side of the inventory protocol; see
// docs/data-model.md, "Data model and producer contract"):
//  - Every regular file becomes a blob, every directory an awc-manifest/1
//    manifest (entries sorted by name); the tree's root manifest is the
//    snapshot's root_digest. Symbolic links and special files are skipped
//    and reported. Files are hashed and uploaded streaming; the store
//    hashes each file again while uploading it and refuses it if it
//    changed (ObjectStore::PutFile), which fails the import before any
//    snapshot exists.
//  - Objects are uploaded before their inventory rows exist, so a LIVE row
//    always means the object is in the store. An object already LIVE in the
//    inventory is not uploaded again (dedup): its last_seen_at is touched in
//    the same transaction that inserts the snapshot. A directory whose
//    manifest is referenced with its entries recorded is reused whole: only
//    the manifest is touched (checked again, with its row locked, in that
//    transaction; one no longer reusable is walked into). One found DELETING is
//    treated as absent: the import waits until GC has removed its row, then
//    uploads it again and inserts a fresh LIVE row.
//  - The tenant is created if needed; the snapshot is inserted VALIDATING
//    and a snapshot_validate job enqueued, in that same transaction.
#ifndef AWC_CLI_IMPORTER_H_
#define AWC_CLI_IMPORTER_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "db/pg.h"
#include "store/object_store.h"

namespace awc::cli {

struct ImportOptions {
  std::string tenant_id;
  std::optional<int64_t> workspace_id;
  std::string dir;
  double deleting_wait_secs = 120;  // how long to wait for GC to finish
};

struct ImportResult {
  int64_t snapshot_id = 0;
  int64_t job_id = 0;
  std::string root_digest;
  int64_t objects = 0;  // distinct objects in the tree
  int64_t uploaded = 0;
  int64_t deduplicated = 0;          // not uploaded (touched or reused)
  int64_t reused_subtrees = 0;       // directories reused whole
  int64_t bytes = 0;                 // sum of distinct object sizes
  std::vector<std::string> skipped;  // paths that are neither file nor dir
};

Result<ImportResult> ImportTree(db::PgConn& conn, store::ObjectStore& store,
                                const ImportOptions& options);

}  // namespace awc::cli

#endif  // AWC_CLI_IMPORTER_H_
