#include "cli/store_cmd.h"

#include <ev.h>

#include <cstdio>
#include <string>

#include "common/redact.h"
#include "config/config.h"
#include "options/module_options.h"
#include "store/open_store.h"
#include "store/store_url.h"

namespace awc::cli {

const char* const kStoreUsage =
    "  store init URL                   create the object store at URL (its\n"
    "                                   directory and marker); once, before\n"
    "                                   awc-worker uses it\n";

namespace {

int Fail(const Status& s) {
  fprintf(stderr, "awcctl: %s\n", Scrub(s.message()).c_str());
  return 1;
}

int Init(const std::string& config_path, const std::string& text) {
  Result<store::StoreUrl> url = store::ParseStoreUrl(text);
  if (!url.ok()) return Fail(url.status());
  Result<config::Config> cfg =
      config::Config::Load(config_path, config::ProcessEnv());
  if (!cfg.ok()) return Fail(cfg.status());
  std::string name = store::FormatStoreUrl(*url);
  if (url->scheme == store::StoreUrl::Scheme::kMemory) {
    printf("%s needs no initialisation\n", name.c_str());
    return 0;
  }
  struct ev_loop* loop = ev_loop_new(EVFLAG_AUTO);
  Result<bool> made = store::InitializeStore(
      *url, options::S3OptionsFrom(cfg->settings()), loop);
  ev_loop_destroy(loop);
  if (!made.ok()) return Fail(made.status());
  if (*made) {
    printf("initialised %s\n", name.c_str());
  } else {
    printf("%s is already an awc store\n", name.c_str());
  }
  return 0;
}

}  // namespace

int StoreCommand(const std::string& config_path, int argc, char** argv,
                 int (*usage)(const std::string& problem)) {
  if (argc < 2) return usage("store needs a subcommand (init)");
  std::string sub = argv[1];
  if (sub != "init") return usage("unknown store subcommand \"" + sub + "\"");
  if (argc != 3) return usage("store init needs exactly one URL");
  return Init(config_path, argv[2]);
}

}  // namespace awc::cli
