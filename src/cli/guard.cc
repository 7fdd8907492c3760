#include "cli/guard.h"

#include <unistd.h>

#include <cstdio>

#include "cli/output.h"
#include "common/redact.h"

namespace awc::cli {
namespace {

class StdioTerminal : public Terminal {
 public:
  bool Interactive() override {
    return isatty(STDIN_FILENO) == 1 && isatty(STDERR_FILENO) == 1;
  }
  void Prompt(std::string_view text) override {
    // The database's name comes from the connection string: one line.
    std::string clean = OneLine(Scrub(text));
    fwrite(clean.data(), 1, clean.size(), stderr);
    fflush(stderr);
  }
  std::optional<std::string> ReadLine() override {
    std::string line;
    for (int c; (c = getchar()) != EOF;) {
      if (c == '\n') return line;
      line += static_cast<char>(c);
      if (line.size() > 4096) break;  // nobody types that
    }
    if (line.empty()) return std::nullopt;
    return line;
  }
};

}  // namespace

std::unique_ptr<Terminal> ProcessTerminal() {
  return std::make_unique<StdioTerminal>();
}

Status ConfirmProduction(Terminal& terminal, std::string_view target,
                         std::string_view dbname, bool yes) {
  if (yes) return Status::OK();
  std::string what = std::string(target) + " is a production database";
  if (!terminal.Interactive()) {
    return Status::FailedPrecondition(
        "refused: " + what +
        " and there is no terminal to confirm on; pass --yes to go on");
  }
  terminal.Prompt("awcctl: " + what + "; type its name (" +
                  std::string(dbname) + ") to go on: ");
  std::optional<std::string> line = terminal.ReadLine();
  if (line && !line->empty() && line->back() == '\r') line->pop_back();
  if (!line || *line != dbname) {
    return Status::FailedPrecondition("refused: the name typed is not \"" +
                                      std::string(dbname) + "\"");
  }
  return Status::OK();
}

}  // namespace awc::cli
