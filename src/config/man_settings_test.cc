// man/awc-worker.conf(5) names every setting of the table, with its
// environment variable and, for the numeric ones, the exact range the
// table enforces.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "config/setting_spec.h"

namespace awc::config {
namespace {

// ".It Li [section] key Pq Ev ENV" -> the text up to the next ".It"/".El".
std::map<std::string, std::string> SettingItems(const std::string& man) {
  std::map<std::string, std::string> items;
  std::istringstream in(man);
  std::string line, current;
  bool in_settings = false;
  while (std::getline(in, line)) {
    if (line.rfind(".Sh ", 0) == 0) in_settings = line == ".Sh SETTINGS";
    if (!in_settings) continue;
    if (line.rfind(".It Li [", 0) == 0) {
      current = line.substr(7);
      EXPECT_EQ(items.count(current), 0u) << current << " is listed twice";
      items[current];
    } else if (line.rfind(".It", 0) == 0 || line.rfind(".El", 0) == 0) {
      current.clear();
    } else if (!current.empty()) {
      items[current] += line + "\n";
    }
  }
  return items;
}

TEST(ManSettingsTest, ConfPageListsEverySettingWithItsRange) {
  std::ifstream in(std::string(AWC_SOURCE_DIR) + "/man/awc-worker.conf.5");
  ASSERT_TRUE(in.good()) << "man/awc-worker.conf.5 not found";
  std::stringstream buf;
  buf << in.rdbuf();
  std::map<std::string, std::string> items = SettingItems(buf.str());
  size_t expected = 0;
  for (const Spec& spec : Specs()) {
    std::string item = std::string("[") + spec.section + "] " + spec.key +
                       " Pq Ev " + spec.env;
    ++expected;
    ASSERT_EQ(items.count(item), 1u) << item << " is missing";
    EXPECT_FALSE(items[item].empty()) << item << " says nothing";
    if (std::holds_alternative<int64_t Settings::*>(spec.field)) {
      std::string range =
          std::to_string(spec.min) + " to " + std::to_string(spec.max);
      EXPECT_EQ(items[item].rfind(range, 0), 0u)
          << item << " should start with \"" << range << "\", not \""
          << items[item] << "\"";
    }
    if (spec.file_variant) {
      ++expected;
      EXPECT_EQ(items.count(std::string("[") + spec.section + "] " + spec.key +
                            "_file Pq Ev " + spec.env + "_FILE"),
                1u)
          << spec.env << "_FILE is missing";
    }
  }
  EXPECT_EQ(items.size(), expected)
      << "the page lists settings that do not exist";
}

}  // namespace
}  // namespace awc::config
