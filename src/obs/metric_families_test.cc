// The table of families is well formed, and each document that lists the
// metric families names exactly the families the binary serves: those of
// kMetricFamilies, each once.
#include "obs/metric_families.h"

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace awc::obs {
namespace {

// How a document lists the families.
enum class ListForm {
  // The table under `section` whose first header cell is "metric": each
  // backticked word of a row's first cell is a family.
  kMarkdownTable,
  // The tag list of the mdoc section `section`: each `Li` argument of an
  // .It line, before its labels (`Ns`), is a family.
  kMdocTags,
};

struct MetricDoc {
  const char* path;     // from the source tree's root
  const char* section;  // the heading line the list is under
  ListForm form;
};

// The documents that list the families. When a list moves, its document
// moves here.
constexpr MetricDoc kMetricDocs[] = {
    {"README.md", "## Observability", ListForm::kMarkdownTable},
    {"docs/observability.md", "## Metrics", ListForm::kMarkdownTable},
    {"man/awc-worker.8", ".Sh METRICS", ListForm::kMdocTags},
};

std::string ReadSource(const std::string& path) {
  std::ifstream in(std::string(AWC_SOURCE_DIR) + "/" + path);
  EXPECT_TRUE(in.good()) << path << " not found";
  std::stringstream buf;
  buf << in.rdbuf();
  return buf.str();
}

// The lines of the section that starts at the line `heading`, up to the
// next heading of its kind (a line with the same first word).
std::vector<std::string> Section(const std::string& text,
                                 const std::string& heading) {
  std::string kind = heading.substr(0, heading.find(' ') + 1);
  std::vector<std::string> out;
  std::istringstream in(text);
  bool inside = false;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(kind, 0) == 0) inside = line == heading;
    if (inside) out.push_back(line);
  }
  return out;
}

std::vector<std::string> MarkdownTableNames(
    const std::vector<std::string>& lines) {
  std::vector<std::string> names;
  bool in_table = false;
  for (const std::string& line : lines) {
    if (line.rfind("| metric |", 0) == 0) {
      in_table = true;
      continue;
    }
    if (!in_table) continue;
    if (line.rfind("|", 0) != 0) break;
    if (line.rfind("|---", 0) == 0) continue;
    std::string cell = line.substr(1, line.find('|', 1) - 1);
    for (size_t at = cell.find('`'); at != std::string::npos;) {
      size_t end = cell.find('`', at + 1);
      if (end == std::string::npos) break;
      names.push_back(cell.substr(at + 1, end - at - 1));
      at = cell.find('`', end + 1);
    }
  }
  return names;
}

std::vector<std::string> MdocTagNames(const std::vector<std::string>& lines) {
  std::vector<std::string> names;
  std::string item;
  for (const std::string& line : lines) {
    item += line;
    if (!item.empty() && item.back() == '\\') {  // continued
      item.pop_back();
      item += ' ';
      continue;
    }
    if (item.rfind(".It ", 0) == 0) {
      std::istringstream words(item.substr(4));
      std::string prev, word;
      while (words >> word && word != "Ns") {
        if (prev == "Li") names.push_back(word);
        prev = word;
      }
    }
    item.clear();
  }
  return names;
}

TEST(MetricFamiliesTest, EveryDocumentListsExactlyTheServedFamilies) {
  std::set<std::string> served;
  for (const MetricFamily& f : kMetricFamilies) served.insert(f.name);
  for (const MetricDoc& doc : kMetricDocs) {
    std::vector<std::string> lines = Section(ReadSource(doc.path), doc.section);
    ASSERT_FALSE(lines.empty()) << doc.path << " has no " << doc.section;
    std::vector<std::string> names = doc.form == ListForm::kMarkdownTable
                                         ? MarkdownTableNames(lines)
                                         : MdocTagNames(lines);
    std::map<std::string, int> listed;
    for (const std::string& n : names) ++listed[n];
    for (const auto& [name, times] : listed) {
      EXPECT_EQ(served.count(name), 1u)
          << doc.path << " lists " << name << ", which is not served";
      EXPECT_EQ(times, 1) << doc.path << " lists " << name << " " << times
                          << " times";
    }
    for (const std::string& name : served) {
      EXPECT_EQ(listed.count(name), 1u)
          << doc.path << " (" << doc.section << ") does not list " << name;
    }
  }
}

TEST(MetricFamiliesTest, NamesAreUniqueAndScrapedFamiliesCanBeRead) {
  std::set<std::string> names;
  for (const MetricFamily& f : kMetricFamilies) {
    EXPECT_TRUE(names.insert(f.name).second) << f.name;
    EXPECT_EQ(f.source == MetricSource::kScrape, f.scrape != nullptr) << f.name;
    EXPECT_TRUE(f.source == MetricSource::kCell || f.fixed == LabelValues{})
        << f.name << ": only a single cell has fixed label values";
    for (int j = 0; j < kMaxFamilyLabels; ++j) {
      if (f.source == MetricSource::kCell && j < NumLabels(f)) {
        EXPECT_FALSE(f.fixed[j].empty()) << f.name << " label " << j;
      }
    }
  }
}

}  // namespace
}  // namespace awc::obs
