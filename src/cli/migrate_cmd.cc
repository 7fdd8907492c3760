// awcctl migrate: apply, --status, --sql [--pending], --extract-to DIR,
// --dry-run (awcctl(1), "migrate").
#include <algorithm>

#include "cli/invocation.h"
#include "cli/output.h"
#include "cli/verbs.h"
#include "common/env.h"
#include "migrate/migrator.h"
#include "migrate/scripts.h"
#include "options/module_options.h"

namespace awc::cli {
namespace {

int Apply(Invocation& inv) {
  Result<db::PgConn*> conn = inv.Connect({.changes = true, .any_schema = true});
  if (!conn.ok()) return inv.Fail(conn.status());
  migrate::MigrateOptions options =
      options::MigrateOptionsFor(inv.args().Has("allow-incompatible"));
  Result<std::vector<std::string>> applied =
      migrate::Migrate(**conn, migrate::EmbeddedMigrations(), options);
  if (!applied.ok())
    return inv.Fail(applied.status().WithContext("migrations"));
  Result<migrate::SchemaState> state = migrate::Inspect(**conn);
  if (!state.ok()) return inv.Fail(state.status());
  if (inv.json()) {
    JsonPtr doc(json_object());
    json_t* names = json_array();
    for (const std::string& n : *applied) {
      json_array_append_new(names, JsonText(n).release());
    }
    json_object_set_new(doc.get(), "applied", names);
    json_object_set_new(doc.get(), "version",
                        json_integer(state->current_version));
    inv.Print(doc);
    return kExitOk;
  }
  std::string text;
  for (const std::string& name : *applied) text += "applied " + name + "\n";
  text +=
      "schema is at version " + std::to_string(state->current_version) + "\n";
  inv.Print(text);
  return kExitOk;
}

int ShowStatus(Invocation& inv) {
  Result<db::PgConn*> conn = inv.Connect({.any_schema = true});
  if (!conn.ok()) return inv.Fail(conn.status());
  Result<std::vector<migrate::MigrationStatus>> list = migrate::List(**conn);
  if (!list.ok()) return inv.Fail(list.status());
  Table t({{"VERSION", "version"},
           {"NAME", "name"},
           {"STATE", "state"},
           {"APPLIED_AT", "applied_at"},
           {"COMPATIBLE_FROM", "compatible_from"},
           {"CHECKSUM", "checksum"}});
  int current = 0, pending = 0;
  for (const migrate::MigrationStatus& m : *list) {
    bool applied = m.state != migrate::MigrationStatus::State::kPending;
    if (applied) current = std::max(current, m.version);
    if (!applied) ++pending;
    t.Add({Cell::Int(m.version), Cell::Text(m.name),
           Cell::Text(migrate::MigrationStateName(m.state)),
           applied ? Cell::Text(m.applied_at) : Cell::None(),
           m.compatible_from > 0 ? Cell::Int(m.compatible_from) : Cell::None(),
           Cell::Text(m.checksum)});
  }
  const std::vector<migrate::Migration>& embedded =
      migrate::EmbeddedMigrations();
  int latest = embedded.empty() ? 0 : embedded.back().version;
  if (inv.json()) {
    JsonPtr doc(json_object());
    json_object_set_new(doc.get(), "version", json_integer(current));
    json_object_set_new(doc.get(), "binary_version", json_integer(latest));
    json_object_set_new(doc.get(), "migrations", t.Json().release());
    inv.Print(doc);
    return kExitOk;
  }
  inv.Print(t.Text() + "schema is at version " + std::to_string(current) +
            ", this binary's latest is " + std::to_string(latest) + " (" +
            std::to_string(pending) + " pending)\n");
  return kExitOk;
}

int DryRun(Invocation& inv) {
  Result<db::PgConn*> conn = inv.Connect({.any_schema = true});
  if (!conn.ok()) return inv.Fail(conn.status());
  Result<migrate::SchemaState> state = migrate::Inspect(**conn);
  if (!state.ok()) return inv.Fail(state.status());
  if (inv.json()) {
    JsonPtr doc(json_object());
    json_t* names = json_array();
    for (const std::string& n : state->pending) {
      json_array_append_new(names, JsonText(n).release());
    }
    json_object_set_new(doc.get(), "dry_run", json_true());
    json_object_set_new(doc.get(), "would_apply", names);
    json_object_set_new(doc.get(), "version",
                        json_integer(state->current_version));
    inv.Print(doc);
    return kExitOk;
  }
  std::string text;
  for (const std::string& n : state->pending) text += "would apply " + n + "\n";
  if (state->pending.empty()) text += "nothing to apply\n";
  inv.Print(text);
  return kExitOk;
}

int PrintSql(Invocation& inv) {
  std::vector<migrate::Migration> chosen = migrate::EmbeddedMigrations();
  if (inv.args().Has("pending")) {
    Result<db::PgConn*> conn = inv.Connect({.any_schema = true});
    if (!conn.ok()) return inv.Fail(conn.status());
    Result<migrate::SchemaState> state = migrate::Inspect(**conn);
    if (!state.ok()) return inv.Fail(state.status());
    std::erase_if(chosen, [&](const migrate::Migration& m) {
      return std::find(state->pending.begin(), state->pending.end(), m.name) ==
             state->pending.end();
    });
    if (chosen.empty()) {
      inv.Note("nothing is pending: no SQL to print");
      return kExitOk;
    }
  }
  if (!inv.args().Has("no-transaction")) {
    inv.Print(migrate::SqlBundle(chosen));
    return kExitOk;
  }
  std::string text;
  for (const migrate::Migration& m : chosen) text += migrate::PlainSql(m);
  inv.Print(text);
  return kExitOk;
}

Status WriteIfAbsent(Env* env, const std::string& path, std::string_view text) {
  Result<std::string> existing = env->ReadFile(path);
  if (existing.ok()) {
    if (*existing == text) return Status::OK();
    return Status::FailedPrecondition(
        "\"" + path + "\" exists with other content; not overwritten");
  }
  if (!existing.status().IsNotFound()) return existing.status();
  AWC_ASSIGN_OR_RETURN(std::unique_ptr<WritableFile> f,
                       env->NewWritableFile(path, Env::CreateMode::kExclusive));
  AWC_RETURN_IF_ERROR(f->Append(text));
  return f->Close();
}

int Extract(Invocation& inv) {
  std::string dir = inv.args().Get("extract-to");
  if (dir.empty()) return inv.Usage("--extract-to needs a directory");
  Env* env = Env::Default();
  if (Status s = env->CreateDirs(dir); !s.ok()) return inv.Fail(s);
  std::string text;
  for (const migrate::Migration& m : migrate::EmbeddedMigrations()) {
    std::string path = dir + "/" + m.name + ".sql";
    // Each file is its one migration with no transaction of its own, for
    // a runner that wraps each file in one (awc-worker(8), UPGRADING), and
    // records it as awcctl migrate would.
    if (Status s = WriteIfAbsent(env, path, migrate::PlainSql(m)); !s.ok()) {
      return inv.Fail(s);
    }
    text += OneLine(path) + "\n";
  }
  inv.Print(text);
  return kExitOk;
}

int RunMigrate(Invocation& inv) {
  const ParsedArgs& a = inv.args();
  int modes = 0;
  for (const char* m : {"status", "sql", "extract-to", "dry-run"}) {
    modes += a.Has(m) ? 1 : 0;
  }
  if (modes > 1) {
    return inv.Usage("--status, --sql, --extract-to and --dry-run go alone");
  }
  if (a.Has("pending") && !a.Has("sql")) {
    return inv.Usage("--pending goes with --sql");
  }
  if (a.Has("no-transaction") && !a.Has("sql")) {
    return inv.Usage("--no-transaction goes with --sql");
  }
  if (a.Has("allow-incompatible") && modes > 0) {
    return inv.Usage("--allow-incompatible goes with applying (no other mode)");
  }
  if (inv.json() && (a.Has("sql") || a.Has("extract-to"))) {
    return inv.Usage("--sql and --extract-to print no JSON");
  }
  if (a.Has("sql")) return PrintSql(inv);
  if (a.Has("extract-to")) return Extract(inv);
  if (a.Has("status")) return ShowStatus(inv);
  if (a.Has("dry-run")) return DryRun(inv);
  return Apply(inv);
}

}  // namespace

void AddMigrateCommands(std::vector<Command>* out) {
  Command c{
      "migrate",
      "[--allow-incompatible | --status | --sql [--pending] "
      "[--no-transaction] | --extract-to DIR | --dry-run]",
      "apply the pending schema migrations, or show or print them",
      "Without an option, applies every pending migration in one transaction\n"
      "(as the migrator role, which may create tables); a migration that the\n"
      "builds of live workers cannot run on is refused, naming them, unless\n"
      "--allow-incompatible. --status lists every migration with its state,\n"
      "checksum and compatibility; --sql prints them as one SQL transaction\n"
      "a DBA can review and apply with psql, recorded so that awc-worker\n"
      "accepts the result (--pending: only those the database lacks;\n"
      "--no-transaction: each migration on its own, unwrapped, for a runner\n"
      "that wraps it); --extract-to writes each migration as such a file;\n"
      "--dry-run says what would be applied.\n",
      {{"status", nullptr, "list applied and pending migrations"},
       {"sql", nullptr, "print the migrations as one SQL transaction"},
       {"pending", nullptr, "with --sql: only what the database lacks"},
       {"no-transaction", nullptr,
        "with --sql: no transaction or lock (an external runner's)"},
       {"extract-to", "DIR", "write the migration files into DIR"},
       {"allow-incompatible", nullptr,
        "apply migrations that live workers' builds cannot run on"},
       {"dry-run", nullptr, "say what would be applied, apply nothing"}}};
  c.json = true;
  c.changes = true;
  c.run = RunMigrate;
  out->push_back(c);
}

}  // namespace awc::cli
