// file:///abs/path — objects as files under a root directory.
//
// Layout: <root>/<tenant>/sha256/<hex[0:2]>/<hex>. A write goes to a
// temporary file in the same directory, is fsync()ed, renamed into place,
// and the directory is fsync()ed, so a crash leaves the old state or the
// new one, never a torn object. Reads stream in chunks. The store marker
// is <root>/.awc-store, written the same way. All file system access goes
// through Env, so tests can inject faults.
//
// No key leads out of its tenant: the root is resolved once, when the
// store is opened, and below it no symbolic link is followed, by any call.
// A link (or a file) where the layout has a directory is an error of the
// layout (kFailedPrecondition), never listed into, read, written or
// deleted through; List() reports it as one other key (docs/store.md,
// "The file store's layout").
#ifndef AWC_STORE_FILE_STORE_H_
#define AWC_STORE_FILE_STORE_H_

#include <memory>
#include <string>

#include "common/env.h"
#include "store/object_store.h"

namespace awc::store {

// `root` is an absolute directory that exists: it is not created here
// (InitializeStore does, open_store.h). kNotFound when it is missing; an
// error when it is not a directory or not writable.
Result<std::unique_ptr<ObjectStore>> NewFileStore(const std::string& root,
                                                  Env* env = Env::Default());

}  // namespace awc::store

#endif  // AWC_STORE_FILE_STORE_H_
