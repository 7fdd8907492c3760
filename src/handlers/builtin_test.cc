// The built-in kinds: what RegisterBuiltinHandlers() registers is what
// BuiltinKinds() names, and every one of them is documented where an
// operator looks for it (docs/handlers.md, "The kinds"; README.md;
// awc-worker(8), JOB KINDS). The bash completion asks `awcctl --list kinds`,
// which reads the registry.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "handlers/registry.h"

namespace awc::handlers {
namespace {

std::string ReadSourceFile(const std::string& path) {
  std::ifstream in(std::string(AWC_SOURCE_DIR) + "/" + path);
  EXPECT_TRUE(in.good()) << path << " not found";
  std::stringstream buf;
  buf << in.rdbuf();
  return buf.str();
}

// The lines of `text` from the one that is `heading` to the next line
// starting with `next` (e.g. the next section of the same level).
std::string Section(const std::string& text, const std::string& heading,
                    const std::string& next) {
  std::istringstream in(text);
  std::string line, out;
  bool inside = false;
  while (std::getline(in, line)) {
    if (inside && line.rfind(next, 0) == 0) break;
    if (line == heading) inside = true;
    if (inside) out += line + "\n";
  }
  EXPECT_FALSE(out.empty()) << "no section \"" << heading << "\"";
  return out;
}

std::set<std::string> Builtins() {
  std::set<std::string> kinds;
  for (std::string_view kind : BuiltinKinds()) kinds.emplace(kind);
  return kinds;
}

// The kinds awc-worker(8) describes: ".It Li <kind> Li {...}" of JOB KINDS.
std::set<std::string> ManPageKinds() {
  std::string section =
      Section(ReadSourceFile("man/awc-worker.8"), ".Sh JOB KINDS", ".Sh ");
  std::set<std::string> kinds;
  std::regex item(R"(^\.It Li ([a-z0-9_]+) Li )");
  std::istringstream in(section);
  std::string line;
  std::smatch m;
  while (std::getline(in, line)) {
    if (std::regex_search(line, m, item)) kinds.insert(m[1]);
  }
  return kinds;
}

TEST(BuiltinTest, RegistersExactlyTheKindsItNames) {
  Registry registry;
  RegisterBuiltinHandlers(registry);
  std::vector<std::string> named(BuiltinKinds().begin(), BuiltinKinds().end());
  std::sort(named.begin(), named.end());
  EXPECT_EQ(std::adjacent_find(named.begin(), named.end()), named.end())
      << "a kind is listed twice";
  EXPECT_EQ(registry.Kinds(), named);  // Kinds() is sorted
}

TEST(BuiltinTest, KindNamesAreShortIdentifiers) {
  // Process titles show at most 48 characters of a kind, and only
  // [A-Za-z0-9_.-] (docs/ARCHITECTURE.md, "Process tree").
  for (std::string_view kind : BuiltinKinds()) {
    EXPECT_TRUE(
        std::regex_match(std::string(kind), std::regex("[a-z][a-z0-9_]{0,47}")))
        << kind;
  }
}

TEST(BuiltinTest, ManPageDescribesEveryKindAndNoOther) {
  EXPECT_EQ(ManPageKinds(), Builtins())
      << "man/awc-worker.8, JOB KINDS, has one .It per built-in kind";
}

TEST(BuiltinTest, ArchitectureAndReadmeListEveryKind) {
  std::string handlers =
      Section(ReadSourceFile("docs/handlers.md"), "## The kinds", "## ");
  std::string readme = ReadSourceFile("README.md");
  for (std::string_view kind : BuiltinKinds()) {
    std::string row = "| `" + std::string(kind) + "` |";
    EXPECT_NE(handlers.find(row), std::string::npos)
        << "docs/handlers.md, \"The kinds\", has no row for " << kind;
    EXPECT_NE(readme.find(row), std::string::npos)
        << "README.md's Jobs table has no row for " << kind;
  }
}

}  // namespace
}  // namespace awc::handlers
