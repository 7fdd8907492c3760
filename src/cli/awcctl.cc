#include "cli/awcctl.h"

#include <algorithm>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "catalog/states.h"
#include "cli/args.h"
#include "cli/output.h"
#include "cli/verbs.h"
#include "common/build_version.h"
#include "common/enum_table.h"
#include "common/redact.h"
#include "config/unknown_variables.h"
#include "handlers/registry.h"
#include "obs/log.h"
#include "queue/job.h"

namespace awc::cli {
namespace {

const std::vector<Command>& AllCommands() {
  static const std::vector<Command> all = [] {
    std::vector<Command> out;
    for (AddCommandsFn add : kVerbGroups) add(&out);
    return out;
  }();
  return all;
}

constexpr const char* kGlobalUsage =
    "usage: awcctl [-c FILE] [-d URL] [--yes] [--json] COMMAND [ARGS]\n"
    "       awcctl help [COMMAND] | -h | --help | -V | --version\n"
    "       awcctl --list [LIST]\n";

template <typename Row, size_t N>
std::vector<std::string> Names(const Row (&rows)[N]) {
  std::vector<std::string> out;
  for (const Row& row : rows) out.emplace_back(row.name);
  return out;
}

// What `awcctl --list LIST` prints, one value a line, from the tables the
// values live in: what the bash completion offers (awcctl(1), OPTIONS).
struct Listing {
  const char* name;
  std::vector<std::string> (*values)();
};
const Listing kListings[] = {
    {"states", [] { return Names(queue::kJobStates); }},
    {"reasons", [] { return Names(queue::kDeadReasons); }},
    {"snapshot-states", [] { return Names(catalog::kSnapshotStates); }},
    {"kinds",
     [] {
       handlers::Registry registry;
       handlers::RegisterBuiltinHandlers(registry);
       return registry.Kinds();
     }},
};

constexpr const char* kGlobalOptions =
    "options (before COMMAND; -c and -d also after it):\n"
    "  -c FILE             read settings from the INI file FILE (also\n"
    "                      AWC_CONFIG; default " AWC_DEFAULT_CONFIG_FILE
    "\n"
    "                      when it exists)\n"
    "  -d, --database-url URL\n"
    "                      the database to act on, instead of DATABASE_URL\n"
    "  -y, --yes           do not ask before changing a production database\n"
    "  --json              print one JSON document instead of text\n"
    "  -h, --help          show this help; COMMAND --help shows a command's\n"
    "  -V, --version       show the version\n"
    "  --list [LIST]       print the values of LIST (job states, dead\n"
    "                      reasons, snapshot states, job kinds), one a\n"
    "                      line; alone, the names of the lists\n"
    "\n"
    "exit status: 0 done; 1 a runtime error (health: not ready); 2 a usage\n"
    "error; 3 refused by the production guard. See awcctl(1).\n";

std::vector<std::string> Words(std::string_view name) {
  std::vector<std::string> out;
  size_t at = 0;
  while (at < name.size()) {
    size_t sp = name.find(' ', at);
    if (sp == std::string_view::npos) sp = name.size();
    out.emplace_back(name.substr(at, sp - at));
    at = sp + 1;
  }
  return out;
}

using Commands = std::vector<Command>;

bool IsGroup(const Commands& cmds, std::string_view word) {
  for (const Command& c : cmds) {
    if (Words(c.name).size() > 1 && Words(c.name)[0] == word) return true;
  }
  return false;
}

std::string CommandList(const Commands& cmds, std::string_view group) {
  std::string out;
  for (const Command& c : cmds) {
    if (!group.empty() && Words(c.name)[0] != group) continue;
    std::string line = "  " + std::string(c.name) + " " + c.args;
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n      " + c.summary + "\n";
  }
  return out;
}

std::string GlobalHelp(const Commands& cmds) {
  return std::string(kGlobalUsage) + "\ncommands:\n" + CommandList(cmds, "") +
         "\n" + kGlobalOptions;
}

std::string GroupHelp(const Commands& cmds, std::string_view group) {
  std::string out = "usage: awcctl " + std::string(group) + " VERB [ARGS]\n";
  for (const Command& c : cmds) {
    if (c.bare && Words(c.name)[0] == group) {
      out += "\n\"awcctl " + std::string(group) + " [ARGS]\" is \"awcctl " +
             c.name + " [ARGS]\".\n";
    }
  }
  return out + "\nverbs:\n" + CommandList(cmds, group) + "\nawcctl " +
         std::string(group) + " VERB --help shows a verb's options.\n";
}

std::string CommandHelp(const Command& c) {
  std::string out = "usage: awcctl " + std::string(c.name) + " " + c.args +
                    "\n\n" + c.summary + "\n";
  if (*c.help != '\0') out += "\n" + std::string(c.help);
  if (!out.ends_with("\n")) out += "\n";
  out += "\noptions:\n";
  for (const Option& o : AllOptions(c)) {
    std::string left = "  ";
    if (o.letter != 0) left += std::string("-") + o.letter + ", ";
    left += "--" + std::string(o.name);
    if (o.value != nullptr) left += " " + std::string(o.value);
    if (left.size() < 22) {
      left.resize(22, ' ');
    } else {
      left += "\n" + std::string(22, ' ');
    }
    out += left + o.help + "\n";
  }
  return out;
}

int GlobalUsageError(const Io& io, const std::string& problem) {
  PrintText(io.err, "awcctl: " + OneLine(Scrub(problem)) + "\n" + kGlobalUsage +
                        "(awcctl --help for more)\n");
  return kExitUsage;
}

// The command whose name is the longest prefix of `args` (nullptr when
// none); `used` is how many words its name took.
const Command* Match(const Commands& cmds, const std::vector<std::string>& args,
                     size_t* used) {
  const Command* best = nullptr;
  size_t best_len = 0;
  for (const Command& c : cmds) {
    std::vector<std::string> words = Words(c.name);
    if (words.size() <= best_len || words.size() > args.size()) continue;
    if (std::equal(words.begin(), words.end(), args.begin())) {
      best = &c;
      best_len = words.size();
    }
  }
  *used = best_len;
  return best;
}

const Command* Bare(const Commands& cmds, std::string_view group) {
  for (const Command& c : cmds) {
    if (c.bare && Words(c.name)[0] == group) return &c;
  }
  return nullptr;
}

// awcctl's own options that may also follow the verb, parsed with the
// verb's (so that "--" ends them too, and a verb's option value that looks
// like one stays a value). --yes and --json there are the verb's own.
const Option kGlobalsAfterVerb[] = {
    {"config", "FILE", "", false, 'c', true},
    {"database-url", "URL", "", false, 'd'},
};

int RunCommand(const Command& c, Globals g,
               const std::vector<std::string>& rest, const Io& io) {
  std::vector<Option> options = AllOptions(c);
  options.insert(options.end(), std::begin(kGlobalsAfterVerb),
                 std::end(kGlobalsAfterVerb));
  Result<ParsedArgs> parsed = ParseArgs(options, rest);
  if (parsed.ok()) {
    if (parsed->Has("config")) g.config_path = parsed->Get("config");
    if (parsed->Has("database-url")) {
      g.database_url = parsed->Get("database-url");
    }
    parsed->options.erase("config");
    parsed->options.erase("database-url");
  }
  Invocation inv(c, g, parsed.ok() ? *parsed : ParsedArgs(), io);
  if (!parsed.ok()) return inv.Usage(parsed.status().message());
  if (parsed->Has("help")) {
    PrintText(io.out, CommandHelp(c));
    return kExitOk;
  }
  int n = static_cast<int>(parsed->positional.size());
  if (n < c.min_args || (c.max_args >= 0 && n > c.max_args)) {
    if (c.max_args == 0) {
      return inv.Usage(std::string(c.name) + " takes no arguments");
    }
    return inv.Usage(std::string(c.name) + ": wrong number of arguments");
  }
  return c.run(inv);
}

// --list LIST: LIST's values; --list alone: the names of the lists.
int PrintListing(const Io& io, const std::optional<std::string>& list) {
  std::string text;
  if (!list) {
    for (const Listing& l : kListings) text += std::string(l.name) + "\n";
    PrintText(io.out, text);
    return kExitOk;
  }
  const Listing* l = FindRowNamed(kListings, *list);
  if (l == nullptr) {
    return GlobalUsageError(io, "--list takes " +
                                    JoinNames(kListings, ", ", " or ") +
                                    ", not \"" + *list + "\"");
  }
  for (const std::string& v : l->values()) text += v + "\n";
  PrintText(io.out, text);
  return kExitOk;
}

}  // namespace

int RunAwcctl(const std::vector<std::string>& args, const Io& io) {
  return RunAwcctl(AllCommands(), args, io);
}

int RunAwcctl(const std::vector<Command>& cmds,
              const std::vector<std::string>& args, const Io& io) {
  Globals g;
  size_t i = 0;
  for (; i < args.size() && args[i].starts_with("-") && args[i] != "-"; ++i) {
    const std::string& a = args[i];
    auto value = [&](const std::string& name) -> std::optional<std::string> {
      if (a.starts_with(name + "=")) return a.substr(name.size() + 1);
      if (a == name && i + 1 < args.size()) return args[++i];
      return std::nullopt;
    };
    if (a == "-h" || a == "--help") {
      PrintText(io.out, GlobalHelp(cmds));
      return kExitOk;
    }
    if (a == "-V" || a == "--version") {
      PrintText(io.out, std::string("awcctl ") + BuildVersion() + "\n");
      return kExitOk;
    }
    if (a == "--list" || a.starts_with("--list=")) {
      return PrintListing(io, value("--list"));
    }
    if (a == "-y" || a == "--yes") {
      g.yes = true;
    } else if (a == "--json") {
      g.json = true;
    } else if (a == "-c") {
      std::optional<std::string> v = value("-c");
      if (!v) return GlobalUsageError(io, "-c needs a FILE");
      g.config_path = *v;
    } else if (a == "-d" || a == "--database-url" ||
               a.starts_with("--database-url=")) {
      std::optional<std::string> v = value(a == "-d" ? "-d" : "--database-url");
      if (!v) return GlobalUsageError(io, a + " needs a URL");
      g.database_url = *v;
    } else {
      return GlobalUsageError(io, "unknown option " + a);
    }
  }
  std::vector<std::string> words(args.begin() + static_cast<long>(i),
                                 args.end());
  if (words.empty()) return GlobalUsageError(io, "no command given");
  if (words[0] == "help") {
    words.erase(words.begin());
    if (words.empty()) {
      PrintText(io.out, GlobalHelp(cmds));
      return kExitOk;
    }
    words.push_back("--help");
  }
  size_t used = 0;
  if (const Command* c = Match(cmds, words, &used)) {
    std::vector<std::string> rest(words.begin() + static_cast<long>(used),
                                  words.end());
    return RunCommand(*c, g, rest, io);
  }
  const std::string& group = words[0];
  if (!IsGroup(cmds, group)) {
    return GlobalUsageError(io, "unknown command \"" + group + "\"");
  }
  std::vector<std::string> rest(words.begin() + 1, words.end());
  if (!rest.empty() && (rest[0] == "--help" || rest[0] == "-h")) {
    PrintText(io.out, GroupHelp(cmds, group));
    return kExitOk;
  }
  const Command* bare = Bare(cmds, group);
  if (bare != nullptr && (rest.empty() || rest[0].starts_with("-"))) {
    return RunCommand(*bare, g, rest, io);
  }
  std::string problem =
      rest.empty() ? group + " needs a verb"
                   : "unknown command \"" + group + " " + rest[0] + "\"";
  PrintText(io.err, "awcctl: " + OneLine(Scrub(problem)) + "\n" +
                        GroupHelp(cmds, group));
  return kExitUsage;
}

int AwcctlMain(int argc, char** argv) {
  // awcctl reports in its own words; library events (e.g. "migration
  // applied") would only repeat them.
  obs::SetLogLevel(obs::LogLevel::kWarn);
  std::unique_ptr<Terminal> terminal = ProcessTerminal();
  Io io;
  io.terminal = terminal.get();
  io.env = config::ProcessEnv();
  io.env_names = config::ProcessEnvNames();
  io.default_config = config::kDefaultConfigFile;
  std::vector<std::string> args(argv + 1, argv + argc);
  int code = RunAwcctl(args, io);
  fflush(stdout);
  return code;
}

}  // namespace awc::cli
