// awcctl store init URL: make an object store, the only way one is made
// (awcctl(1), "store init"; docs/store.md, "Object store").
#include <ev.h>

#include "cli/invocation.h"
#include "cli/output.h"
#include "cli/verbs.h"
#include "options/module_options.h"
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
    inv.Print(name + " needs no initialisation\n");
  } else if (*made) {
    inv.Print("initialised " + name + "\n");
  } else {
    inv.Print(name + " is already an awc store\n");
  }
  return kExitOk;
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
}

}  // namespace awc::cli
