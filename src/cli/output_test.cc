#include "cli/output.h"

#include <gtest/gtest.h>

#include "common/redact.h"

namespace awc::cli {
namespace {

std::string Dump(const JsonPtr& j) {
  char* text =
      json_dumps(j.get(), JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_ENCODE_ANY |
                              JSON_REAL_PRECISION(kJsonDigits));
  std::string out = text;
  free(text);
  return out;
}

TEST(TableTest, ColumnsAreAlignedNumbersRightTheLastColumnUnpadded) {
  Table t({{"ID", "id"}, {"KIND", "kind"}, {"AGE", "age"}, {"ERROR", "error"}});
  t.Add(
      {Cell::Int(7), Cell::Text("gc_sweep"), Cell::Secs(75), Cell::Text("x")});
  t.Add({Cell::Int(12345), Cell::Text("a"), Cell::None(), Cell::Text("")});
  EXPECT_EQ(t.Text(),
            "   ID  KIND        AGE  ERROR\n"
            "    7  gc_sweep  1m15s  x\n"
            "12345  a             -\n");
  EXPECT_EQ(t.size(), 2u);
}

TEST(TableTest, CellsAreOneLineAndScrubbed) {
  ClearSecrets();
  RegisterSecret("Hunter2-Secret");
  Table t({Table::Column{"ERROR", "error"}});
  t.Add({Cell::Text("line one\nline\ttwo Hunter2-Secret")});
  EXPECT_EQ(t.Text(), "ERROR\nline one line two ********\n");
  EXPECT_EQ(Dump(t.Json()), R"([{"error":"line one\nline\ttwo ********"}])");
  ClearSecrets();
}

// What a terminal reads as a command is a space: the C0 controls, DEL and
// the C1 controls (U+0080..U+009F); bytes that are not UTF-8 are U+FFFD,
// and other characters stay.
TEST(OneLineTest, ControlCharactersBecomeSpaces) {
  EXPECT_EQ(OneLine("a\x1b]0;x\x07"
                    "b\r\n\tc\x7f"),
            "a ]0;x b   c ");
  EXPECT_EQ(OneLine("csi \xc2\x9b"
                    "2J, nel \xc2\x85."),
            "csi  2J, nel  .");
  EXPECT_EQ(OneLine("raw \x9b"
                    "2J"),
            "raw \xef\xbf\xbd"
            "2J");
  EXPECT_EQ(OneLine("caf\xc3\xa9 \xc2\xa0\xe2\x82\xac"),
            "caf\xc3\xa9 \xc2\xa0\xe2\x82\xac");
  EXPECT_EQ(OneLine(""), "");
}

TEST(TableTest, JsonIsAnArrayOfObjectsWithTypedValues) {
  Table t({{"ID", "id"},
           {"OK", "ok"},
           {"AGE", "age_s"},
           {"JOB", "job"},
           {"NAME", "name"}});
  t.Add({Cell::Int(1), Cell::Bool(true), Cell::Secs(1.23456), Cell::None(),
         Cell::Text("bad \xff byte")});
  EXPECT_EQ(Dump(t.Json()),
            R"([{"id":1,"ok":true,"age_s":1.235,"job":null,"name":"bad )"
            "\xEF\xBF\xBD"
            R"( byte"}])");
  EXPECT_EQ(Table({Table::Column{"ID", "id"}}).Text(), "ID\n");
  EXPECT_EQ(Dump(Table({Table::Column{"ID", "id"}}).Json()), "[]");
}

TEST(RecordTest, LabelsAligned) {
  Record r;
  r.Add("id", "id", Cell::Int(3))
      .Add("dead reason", "dead_reason", Cell::None());
  EXPECT_EQ(r.Text(), "id:           3\ndead reason:  -\n");
  EXPECT_EQ(Dump(r.Json()), R"({"id":3,"dead_reason":null})");
}

TEST(FormatAgeTest, Units) {
  EXPECT_EQ(FormatAge(0.42), "0.4s");
  EXPECT_EQ(FormatAge(-1), "0.0s");
  EXPECT_EQ(FormatAge(42.4), "42s");
  EXPECT_EQ(FormatAge(200), "3m20s");
  EXPECT_EQ(FormatAge(7500), "2h05m");
  EXPECT_EQ(FormatAge(3 * 86400 + 4 * 3600 + 59), "3d04h");
}

}  // namespace
}  // namespace awc::cli
