// awcctl store init URL: make an object store, the only way one is made
// (awcctl(1), "store init"; docs/store.md, "Object store"). awcctl store
// reconcile TENANT: have the fleet reconcile a tenant's inventory with the
// store (docs/store.md, "Reconciliation").
#include <ev.h>

#include <chrono>
#include <thread>

#include "cli/invocation.h"
#include "cli/job_check.h"
#include "cli/output.h"
#include "cli/verbs.h"
#include "common/json.h"
#include "digest/ids.h"
#include "handlers/store_reconcile.h"
#include "options/module_options.h"
#include "queue/admin.h"
#include "store/open_store.h"
#include "store/store_url.h"

namespace awc::cli {
namespace {

int RunStoreInit(Invocation& inv) {
  Result<store::StoreUrl> url = store::ParseStoreUrl(inv.args().positional[0]);
  if (!url.ok()) return inv.Usage("URL: " + url.status().message());
  // The S3 endpoint, region and credentials, as the daemon reads them.
  Result<const config::Settings*> settings = inv.Settings();
  if (!settings.ok()) return inv.Fail(settings.status());
  std::string name = store::FormatStoreUrl(*url);
  struct ev_loop* loop = ev_loop_new(EVFLAG_AUTO);
  Result<bool> made =
      store::InitializeStore(*url, options::S3OptionsFrom(**settings), loop);
  ev_loop_destroy(loop);
  if (!made.ok()) return inv.Fail(made.status());
  if (inv.json()) {
    JsonPtr doc(json_object());
    json_object_set_new(doc.get(), "url", JsonText(name).release());
    json_object_set_new(doc.get(), "created", json_boolean(*made));
    inv.Print(doc);
  } else if (url->scheme == store::StoreUrl::Scheme::kMemory) {
    inv.Print(OneLine(name) + " needs no initialisation\n");
  } else if (*made) {
    inv.Print("initialised " + OneLine(name) + "\n");
  } else {
    inv.Print(OneLine(name) + " is already an awc store\n");
  }
  return kExitOk;
}

// The states a job ends in.
bool Finished(const std::string& state) {
  return state == "COMPLETED" || state == "FAILED" || state == "CANCELLED";
}

int RunStoreReconcile(Invocation& inv) {
  const std::string& tenant = inv.args().positional[0];
  if (!digest::IsValidTenantId(tenant)) {
    return inv.Usage("TENANT is not a tenant id");
  }
  double wait_secs = -1;
  if (inv.args().Has("wait")) {
    Result<int64_t> n =
        ParseCount(inv.args().Get("wait"), "--wait", 1, 7 * 86400);
    if (!n.ok()) return inv.Usage(n.status().message());
    wait_secs = static_cast<double>(*n);
  }
  JsonObject payload;
  payload.Str("tenant_id", tenant);
  Result<db::PgConn*> conn = inv.Connect({.changes = true});
  if (!conn.ok()) return inv.Fail(conn.status());
  Result<int64_t> id = queue::Enqueue(**conn, handlers::kStoreReconcileKind,
                                      payload.Dump());
  if (!id.ok()) return inv.Fail(id.status());
  if (wait_secs < 0) {
    if (inv.json()) {
      JsonPtr doc(json_object());
      json_object_set_new(doc.get(), "id", json_integer(*id));
      inv.Print(doc);
    } else {
      inv.Print("enqueued job " + std::to_string(*id) +
                " (store_reconcile of tenant " + tenant +
                "); awcctl jobs show " + std::to_string(*id) + "\n");
    }
    return kExitOk;
  }
  auto deadline = std::chrono::steady_clock::now() +
                  std::chrono::duration<double>(wait_secs);
  for (;;) {
    Result<std::optional<queue::JobDetail>> job = queue::ShowJob(**conn, *id);
    if (!job.ok()) return inv.Fail(job.status());
    if (!job->has_value()) {
      return inv.Fail(Status::NotFound("job " + std::to_string(*id) +
                                       " is gone (pruned?)"));
    }
    const queue::JobDetail& j = **job;
    if (Finished(j.row.state)) {
      if (inv.json()) {
        JsonPtr doc(json_object());
        json_object_set_new(doc.get(), "id", json_integer(*id));
        json_object_set_new(doc.get(), "state",
                            json_string(j.row.state.c_str()));
        Result<JsonPtr> result =
            ParseJson(j.result.empty() ? "null" : j.result);
        json_object_set_new(doc.get(), "result",
                            result.ok() ? result->release() : json_null());
        inv.Print(doc);
      } else {
        inv.Print(
            "job " + std::to_string(*id) + " " + OneLine(j.row.state) + ": " +
            OneLine(j.result.empty() ? j.row.last_error : j.result) + "\n");
      }
      return j.row.state == "COMPLETED" ? kExitOk : kExitError;
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      return inv.Fail(Status::Transient(
          "job " + std::to_string(*id) + " is still " + j.row.state +
          " after --wait; awcctl jobs show " + std::to_string(*id)));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
}

}  // namespace

void AddStoreCommands(std::vector<Command>* out) {
  Command c{"store init",
            "URL [--json]",
            "make the object store at URL, before awc-worker uses it",
            "URL is file:///absolute/path or s3://bucket[/prefix]. Creates a\n"
            "file:// store's directory (with its parents) and writes the\n"
            "store marker .awc-store, which awc-worker and import require;\n"
            "the bucket of an s3:// store must exist. A store that has its\n"
            "marker is left as it is. Run it as the user awc-worker runs as.\n"
            "The S3 settings are read as awc-worker reads them; the database\n"
            "is not used.\n",
            {}};
  c.min_args = c.max_args = 1;
  c.json = true;
  c.run = RunStoreInit;
  out->push_back(c);

  Command r{"store reconcile",
            "TENANT [--wait SECS] [--yes] [--json]",
            "have the fleet compare TENANT's store with its inventory",
            "Enqueues a store_reconcile job for TENANT, which a worker runs:\n"
            "the store's listing against awc.objects, reading no object.\n"
            "Orphans (in the store, not in the inventory, older than\n"
            "AWC_GC_GRACE_SECS) are registered for the next GC epoch to\n"
            "delete; LIVE objects the store lacks make every snapshot that\n"
            "reaches them DEGRADED; other keys are reported. Prints the\n"
            "job's id; with --wait, waits up to SECS seconds for the job to\n"
            "end and prints its result (exit 1 unless it COMPLETED). The\n"
            "built-in schedule \"reconcile\" does the same daily.\n",
            {{"wait", "SECS", "wait for the job, at most SECS seconds"}}};
  r.min_args = r.max_args = 1;
  r.json = true;
  r.changes = true;
  r.run = RunStoreReconcile;
  out->push_back(r);
}

}  // namespace awc::cli
