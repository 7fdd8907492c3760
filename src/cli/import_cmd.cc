// awcctl import: upload a directory tree as a snapshot (awcctl(1),
// "import"; the producer side of docs/data-model.md, "The inventory
// protocol").
#include <ev.h>

#include "cli/importer.h"
#include "cli/invocation.h"
#include "cli/verbs.h"
#include "options/module_options.h"
#include "store/open_store.h"

namespace awc::cli {
namespace {

int RunImport(Invocation& inv) {
  ImportOptions opt;
  opt.tenant_id = inv.args().Get("tenant");
  if (opt.tenant_id.empty()) return inv.Usage("import needs --tenant");
  if (inv.args().Has("workspace")) {
    Result<int64_t> id =
        ParseCount(inv.args().Get("workspace"), "--workspace", 1, INT64_MAX);
    if (!id.ok()) return inv.Usage("--workspace needs a positive integer");
    opt.workspace_id = *id;
  }
  opt.dir = inv.args().positional[0];
  Result<db::PgConn*> conn = inv.Connect({.changes = true});
  if (!conn.ok()) return inv.Fail(conn.status());
  Result<const config::Settings*> settings = inv.Settings();
  if (!settings.ok()) return inv.Fail(settings.status());
  Result<store::StoreUrl> url = options::StoreUrlFrom(**settings);
  if (!url.ok()) return inv.Fail(url.status());
  struct ev_loop* loop = ev_loop_new(EVFLAG_AUTO);
  int code = kExitOk;
  {
    Result<std::unique_ptr<store::ObjectStore>> st =
        store::OpenInitializedStore(*url, options::S3OptionsFrom(**settings),
                                    loop);
    Result<ImportResult> r =
        st.ok() ? ImportTree(**conn, **st, opt)
                : Result<ImportResult>(
                      st.status().WithContext("object store (AWC_CAS_URL)"));
    if (!r.ok()) {
      code = inv.Fail(r.status());
    } else {
      for (const std::string& path : r->skipped) {
        inv.Note("skipped \"" + path + "\" (not a file or directory)");
      }
      inv.Note("imported " + std::to_string(r->objects) + " objects (" +
               std::to_string(r->uploaded) + " uploaded, " +
               std::to_string(r->deduplicated) + " deduplicated, " +
               std::to_string(r->reused_subtrees) + " directories reused, " +
               std::to_string(r->bytes) + " bytes) as snapshot " +
               std::to_string(r->snapshot_id) + " of tenant " + opt.tenant_id +
               "; validation job " + std::to_string(r->job_id));
      if (inv.json()) {
        JsonPtr doc(json_object());
        json_object_set_new(doc.get(), "snapshot_id",
                            json_integer(r->snapshot_id));
        json_object_set_new(doc.get(), "job_id", json_integer(r->job_id));
        json_object_set_new(doc.get(), "objects", json_integer(r->objects));
        json_object_set_new(doc.get(), "uploaded", json_integer(r->uploaded));
        json_object_set_new(doc.get(), "deduplicated",
                            json_integer(r->deduplicated));
        json_object_set_new(doc.get(), "reused_subtrees",
                            json_integer(r->reused_subtrees));
        json_object_set_new(doc.get(), "bytes", json_integer(r->bytes));
        inv.Print(doc);
      } else {
        inv.Print(std::to_string(r->snapshot_id) + "\n");
      }
    }
  }
  ev_loop_destroy(loop);
  return code;
}

}  // namespace

void AddImportCommands(std::vector<Command>* out) {
  Command c{"import",
            "--tenant T [--workspace ID] DIR [--yes] [--json]",
            "upload DIR as a snapshot and enqueue its validation",
            "Every regular file becomes a blob and every directory an\n"
            "awc-manifest/1 manifest in the store of AWC_CAS_URL; objects the\n"
            "inventory already holds are not uploaded again. The tenant is\n"
            "created if needed. Prints the snapshot id; a summary goes to\n"
            "standard error.\n",
            {{"tenant", "T", "the tenant (created if needed)"},
             {"workspace", "ID", "the tenant's workspace to import into"}}};
  c.min_args = c.max_args = 1;
  c.json = true;
  c.changes = true;
  c.run = RunImport;
  out->push_back(c);
}

}  // namespace awc::cli
