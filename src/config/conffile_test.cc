// contrib/awc-worker.conf, the commented configuration file that packages
// install, lists every setting of the table at its built-in default.
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>

#include "config/config.h"
#include "config/config_test_fixture.h"
#include "config/setting_spec.h"

namespace awc::config {
namespace {

struct CommentedKey {
  std::string value;
  int line = 0;
};

// "[section] key" -> the commented-out ";key = value" line of the file.
std::map<std::string, CommentedKey> ReadCommentedKeys(const std::string& text) {
  std::map<std::string, CommentedKey> keys;
  std::istringstream in(text);
  std::string line, section;
  const std::regex header(R"(^\[([a-z0-9_]+)\]$)");
  const std::regex commented(R"(^;([a-z0-9_]+) =(?: (.*))?$)");
  std::smatch m;
  for (int n = 1; std::getline(in, line); ++n) {
    if (std::regex_match(line, m, header)) {
      section = m[1];
    } else if (std::regex_match(line, m, commented)) {
      std::string name = "[" + section + "] " + m[1].str();
      EXPECT_EQ(keys.count(name), 0u) << name << " is listed twice";
      keys[name] = {m[2].str(), n};
    }
  }
  return keys;
}

class ConffileTest : public ConfigTest {
 protected:
  void SetUp() override {
    ConfigTest::SetUp();
    std::ifstream in(std::string(AWC_SOURCE_DIR) + "/contrib/awc-worker.conf");
    ASSERT_TRUE(in.good()) << "contrib/awc-worker.conf not found";
    std::stringstream buf;
    buf << in.rdbuf();
    text_ = buf.str();
  }
  std::string text_;
};

TEST_F(ConffileTest, ListsEverySettingAndNothingElse) {
  std::map<std::string, CommentedKey> keys = ReadCommentedKeys(text_);
  size_t expected = 0;
  for (const Spec& spec : Specs()) {
    std::string name = std::string("[") + spec.section + "] " + spec.key;
    EXPECT_EQ(keys.count(name), 1u)
        << name << " (" << spec.env << ") is missing";
    ++expected;
    if (spec.file_variant) {
      EXPECT_EQ(keys.count(name + "_file"), 1u) << name << "_file is missing";
      ++expected;
    }
  }
  EXPECT_EQ(keys.size(), expected) << "the file lists keys that do not exist";
}

TEST_F(ConffileTest, EveryValueShownIsTheDefault) {
  // Uncommented, the file must load and change nothing: every value it
  // shows is the built-in default. Keys shown without a value are unset
  // by default.
  std::string uncommented;
  for (const auto& [name, key] : ReadCommentedKeys(text_)) {
    if (key.value.empty()) continue;
    std::string section = name.substr(1, name.find(']') - 1);
    std::string k = name.substr(name.find(' ') + 1);
    uncommented += "[" + section + "]\n" + k + " = " + key.value + "\n";
  }
  std::string path = Write("uncommented.conf", uncommented);
  Result<Config> from_file = Load(path);
  ASSERT_TRUE(from_file.ok()) << from_file.status().ToString();
  Result<Config> defaults = Load();
  ASSERT_TRUE(defaults.ok());
  std::map<std::string, CommentedKey> keys = ReadCommentedKeys(text_);
  for (const Spec& spec : Specs()) {
    EXPECT_EQ(Show(spec, from_file->settings()),
              Show(spec, defaults->settings()))
        << spec.env << ": the file shows a value that is not the default";
    std::string name = std::string("[") + spec.section + "] " + spec.key;
    // The endpoint shows as unset: its default follows the region; and
    // the worker id, whose default follows the host's name.
    bool shown_unset = keys.count(name) != 0 && keys[name].value.empty();
    std::string_view env = spec.env;
    if (shown_unset && env != "AWC_S3_ENDPOINT" && env != "AWC_WORKER_ID") {
      EXPECT_EQ(Show(spec, defaults->settings()), "")
          << name << " is shown unset but has a default";
    }
  }
}

}  // namespace
}  // namespace awc::config
