#include "cli/importer.h"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>
#include <set>

#include "cas/manifest.h"
#include "catalog/objects.h"
#include "catalog/snapshots.h"
#include "catalog/workspaces.h"
#include "common/env.h"
#include "common/json.h"
#include "digest/ids.h"
#include "digest/sha256.h"
#include "handlers/snapshot_validate.h"
#include "queue/admin.h"

namespace awc::cli {
namespace {

// Where an object's bytes come from.
struct Source {
  uint64_t size = 0;
  std::string path;                   // a file, or
  std::string manifest;               // the serialized manifest
  std::vector<std::string> children;  // a manifest's entries
};

using Objects = std::map<std::string, Source>;  // digest -> source

// How many times the registering transaction is run again after losing a
// race for row locks (a deadlock, a lock timeout) before the import fails.
constexpr int kLockConflictRetries = 8;

Status IoError(const std::string& what, const std::string& path) {
  return Status::IoError(what + " \"" + path + "\": " + strerror(errno));
}

// JSON strings must be UTF-8; a name that is not cannot be in a manifest.
bool ValidUtf8(std::string_view s) {
  json_t* j = json_stringn(s.data(), s.size());
  bool ok = j != nullptr;
  json_decref(j);
  return ok;
}

Result<std::pair<std::string, uint64_t>> HashFile(const std::string& path) {
  AWC_ASSIGN_OR_RETURN(
      std::unique_ptr<SequentialFile> file,
      Env::Default()->NewSequentialFile(path, Env::Symlinks::kRefuse));
  digest::Sha256 h;
  uint64_t size = 0;
  std::vector<char> buf(256 * 1024);
  for (;;) {
    AWC_ASSIGN_OR_RETURN(size_t n, file->Read(buf.data(), buf.size()));
    h.Update(buf.data(), n);
    size += n;
    if (n < buf.size()) break;
  }
  return std::make_pair("sha256:" + h.FinishHex(), size);
}

// Builds the manifest of `dir` (recursively) and returns its digest.
Result<std::pair<std::string, uint64_t>> AddDir(const std::string& dir,
                                                Objects* objects,
                                                ImportResult* result) {
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return IoError("cannot read directory", dir);
  std::vector<std::string> names;
  while (dirent* e = readdir(d)) {
    std::string name = e->d_name;
    if (name != "." && name != "..") names.push_back(name);
  }
  closedir(d);
  std::sort(names.begin(), names.end());
  cas::Manifest manifest;
  std::vector<std::string> children;
  for (const std::string& name : names) {
    std::string path = dir + "/" + name;
    if (!ValidUtf8(name)) {
      return Status::InvalidArgument("file name is not valid UTF-8 in \"" +
                                     dir + "\"");
    }
    struct stat st;
    if (lstat(path.c_str(), &st) != 0) return IoError("cannot stat", path);
    cas::ManifestEntry entry;
    entry.name = name;
    if (S_ISDIR(st.st_mode)) {
      AWC_ASSIGN_OR_RETURN(auto sub, AddDir(path, objects, result));
      entry.kind = cas::ManifestEntry::Kind::kManifest;
      entry.digest = sub.first;
      entry.size = sub.second;
    } else if (S_ISREG(st.st_mode)) {
      AWC_ASSIGN_OR_RETURN(auto file, HashFile(path));
      entry.digest = file.first;
      entry.size = file.second;
      (*objects)[entry.digest] = Source{entry.size, path, {}, {}};
    } else {
      result->skipped.push_back(path);
      continue;
    }
    children.push_back(entry.digest);
    manifest.entries.push_back(std::move(entry));
  }
  std::string bytes = cas::SerializeManifest(manifest);
  std::string digest = cas::DigestOf(bytes);
  uint64_t size = bytes.size();
  (*objects)[digest] = Source{size, {}, std::move(bytes), std::move(children)};
  return std::make_pair(digest, size);
}

// What the snapshot's registration names: every object reached from the
// root without passing below a reused manifest (`tops` gets those).
struct Named {
  std::vector<std::string> objects;  // registered (uploaded or touched)
  std::vector<std::string> tops;     // touched only, their subtrees not
};
Named NamedObjects(const Objects& objects, const std::string& root,
                   const std::set<std::string>& reusable) {
  Named out;
  std::set<std::string> seen{root};
  std::vector<std::string> stack{root};
  while (!stack.empty()) {
    std::string d = std::move(stack.back());
    stack.pop_back();
    if (reusable.count(d) > 0) {
      out.tops.push_back(d);
      continue;
    }
    out.objects.push_back(d);
    for (const std::string& c : objects.at(d).children) {
      if (seen.insert(c).second) stack.push_back(c);
    }
  }
  return out;
}

Status Upload(store::ObjectStore& store, const std::string& tenant,
              const std::string& digest, const Source& src) {
  AWC_ASSIGN_OR_RETURN(store::ObjectKey key, store::MakeKey(tenant, digest));
  return src.path.empty() ? store.Put(key, src.manifest)
                          : store.PutFile(key, src.path);
}

}  // namespace

Result<ImportResult> ImportTree(db::PgConn& conn, store::ObjectStore& store,
                                const ImportOptions& options) {
  if (!digest::IsValidTenantId(options.tenant_id)) {
    return Status::InvalidArgument(
        "tenant id \"" + options.tenant_id +
        "\" does not match ^[a-z0-9][a-z0-9_-]{0,62}$");
  }
  struct stat st;
  if (stat(options.dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    return Status::InvalidArgument("\"" + options.dir +
                                   "\" is not a directory");
  }
  ImportResult result;
  Objects objects;
  AWC_ASSIGN_OR_RETURN(auto root, AddDir(options.dir, &objects, &result));
  result.root_digest = root.first;
  result.objects = static_cast<int64_t>(objects.size());
  for (const auto& [digest, src] : objects) {
    result.bytes += static_cast<int64_t>(src.size);
  }
  const std::string& tenant = options.tenant_id;
  AWC_RETURN_IF_ERROR(catalog::EnsureTenant(conn, tenant));
  if (options.workspace_id) {
    AWC_ASSIGN_OR_RETURN(bool ours, catalog::WorkspaceOfTenant(
                                        conn, *options.workspace_id, tenant));
    if (!ours) {
      return Status::InvalidArgument("workspace " +
                                     std::to_string(*options.workspace_id) +
                                     " does not exist for tenant " + tenant);
    }
  }

  // A directory whose manifest the catalog holds by reference, entries
  // recorded, is reused whole: only its manifest is touched, and nothing
  // under it is uploaded or registered (docs/data-model.md, "The
  // inventory protocol", rule 4).
  std::vector<std::string> manifests;
  for (const auto& [digest, src] : objects) {
    if (src.path.empty()) manifests.push_back(digest);
  }
  AWC_ASSIGN_OR_RETURN(std::set<std::string> reusable,
                       catalog::ReusableManifests(conn, tenant, manifests));

  // Rounds: upload what the inventory lacks, then register everything in
  // one transaction; a dedup target that GC marked DELETING, or removed
  // altogether, in between sends its digest round again (to be uploaded),
  // and a reused manifest that is no longer referenced is walked into.
  std::map<std::string, bool> uploaded;
  double waited = 0;
  int lock_conflicts = 0;
  Named named;
  for (int lost_rounds = 0;;) {
    named = NamedObjects(objects, result.root_digest, reusable);
    std::vector<std::string> pending;
    for (const std::string& d : named.objects) {
      if (!uploaded[d]) pending.push_back(d);
    }
    AWC_ASSIGN_OR_RETURN(auto states,
                         catalog::InventoryStates(conn, tenant, pending));
    bool deleting = false;
    for (const std::string& digest : pending) {
      auto it = states.find(digest);
      if (it != states.end() && it->second == catalog::ObjectState::kLive) {
        continue;
      }
      if (it != states.end()) {
        deleting = true;  // wait for GC to remove the row first
        continue;
      }
      AWC_RETURN_IF_ERROR(Upload(store, tenant, digest, objects[digest]));
      uploaded[digest] = true;
    }
    if (deleting) {
      if (waited >= options.deleting_wait_secs) {
        return Status::Transient(
            "objects are still being deleted by GC after "
            "waiting; try again later");
      }
      Env::Default()->SleepFor(0.5);
      waited += 0.5;
      continue;
    }
    std::vector<uint64_t> sizes;
    std::vector<bool> ours;
    for (const std::string& digest : named.objects) {
      sizes.push_back(objects[digest].size);
      ours.push_back(uploaded[digest]);
    }
    std::vector<std::string> lost, lost_tops;
    std::vector<std::string> locked = named.objects;
    locked.insert(locked.end(), named.tops.begin(), named.tops.end());
    Status s = db::InTransaction(conn, [&]() -> Status {
      AWC_RETURN_IF_ERROR(catalog::LockObjectRows(conn, tenant, locked));
      AWC_ASSIGN_OR_RETURN(lost, catalog::RegisterObjects(
                                     conn, tenant, named.objects, sizes, ours));
      AWC_ASSIGN_OR_RETURN(lost_tops,
                           catalog::TouchReusedTops(conn, tenant, named.tops));
      if (!lost.empty() || !lost_tops.empty()) {
        return Status::FailedPrecondition("deleting");
      }
      AWC_ASSIGN_OR_RETURN(
          result.snapshot_id,
          catalog::InsertSnapshot(conn, tenant, options.workspace_id,
                                  result.root_digest));
      JsonObject payload;
      payload.Int("snapshot_id", result.snapshot_id);
      AWC_ASSIGN_OR_RETURN(result.job_id,
                           queue::Enqueue(conn, handlers::kSnapshotValidateKind,
                                          payload.Dump()));
      return Status::OK();
    });
    if (s.ok()) break;
    if (db::IsLockConflict(conn.last_sqlstate()) &&
        lock_conflicts < kLockConflictRetries) {
      // Another producer or the worker held rows we needed: the whole
      // transaction is ours to run again, after a pause that grows.
      ++lock_conflicts;
      Env::Default()->SleepFor(0.05 * lock_conflicts);
      continue;
    }
    if ((lost.empty() && lost_tops.empty()) || ++lost_rounds > 5) return s;
    // GC took them since we looked: start over for them.
    for (const std::string& d : lost) uploaded[d] = false;
    for (const std::string& d : lost_tops) reusable.erase(d);
  }
  result.reused_subtrees = static_cast<int64_t>(named.tops.size());
  for (const auto& [digest, done] : uploaded) result.uploaded += done ? 1 : 0;
  result.deduplicated = result.objects - result.uploaded;
  return result;
}

}  // namespace awc::cli
