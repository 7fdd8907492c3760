#include "obs/log.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <jansson.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "common/redact.h"

namespace awc::obs {
namespace {

// 2025-11-30T09:44:56.123Z
constexpr double kTs = 1764495896.123;

struct JsonDeleter {
  void operator()(json_t* j) const { json_decref(j); }
};
using JsonPtr = std::unique_ptr<json_t, JsonDeleter>;

JsonPtr Parse(const std::string& text) {
  json_error_t err;
  JsonPtr j(json_loadb(text.data(), text.size(),
                       JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL, &err));
  EXPECT_NE(j, nullptr) << err.text << " in: " << text;
  return j;
}

std::vector<std::string> Keys(const json_t* obj) {
  std::vector<std::string> keys;
  for (void* it = json_object_iter(const_cast<json_t*>(obj)); it != nullptr;
       it = json_object_iter_next(const_cast<json_t*>(obj), it)) {
    keys.push_back(json_object_iter_key(it));
  }
  return keys;
}

std::string StrField(const json_t* obj, const char* key) {
  const json_t* v = json_object_get(obj, key);
  if (!json_is_string(v)) return "<missing>";
  return std::string(json_string_value(v), json_string_length(v));
}

class LogTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ClearSecrets();
    SetLogWorker("host-a-2");
    SetLogLevel(LogLevel::kInfo);
    ASSERT_EQ(pipe(fds_), 0);
    ASSERT_EQ(fcntl(fds_[0], F_SETFL, O_NONBLOCK), 0);
    SetLogFd(fds_[1]);
  }

  void TearDown() override {
    SetLogFd(2);
    SetLogLevel(LogLevel::kInfo);
    SetLogWorker("awc-worker");
    close(fds_[0]);
    close(fds_[1]);
    ClearSecrets();
  }

  // Everything written to the pipe so far.
  std::string Drain() {
    std::string out;
    char buf[4096];
    for (;;) {
      ssize_t n = read(fds_[0], buf, sizeof buf);
      if (n <= 0) break;
      out.append(buf, static_cast<size_t>(n));
    }
    return out;
  }

  static std::vector<std::string> Lines(const std::string& text) {
    std::vector<std::string> lines;
    size_t start = 0;
    while (start < text.size()) {
      size_t nl = text.find('\n', start);
      EXPECT_NE(nl, std::string::npos) << "unterminated line: " << text;
      if (nl == std::string::npos) break;
      lines.push_back(text.substr(start, nl - start));
      start = nl + 1;
    }
    return lines;
  }

  int fds_[2] = {-1, -1};
};

// --- levels
// -------------------------------------------------------------------

TEST(LogLevelTest, ParseAndName) {
  const std::pair<const char*, LogLevel> all[] = {{"debug", LogLevel::kDebug},
                                                  {"info", LogLevel::kInfo},
                                                  {"warn", LogLevel::kWarn},
                                                  {"error", LogLevel::kError}};
  for (const auto& [name, level] : all) {
    Result<LogLevel> r = ParseLogLevel(name);
    ASSERT_TRUE(r.ok()) << name;
    EXPECT_EQ(*r, level);
    EXPECT_STREQ(LogLevelName(level), name);
  }
  EXPECT_FALSE(ParseLogLevel("INFO").ok());
  EXPECT_FALSE(ParseLogLevel("").ok());
  Result<LogLevel> bad = ParseLogLevel("loud");
  ASSERT_FALSE(bad.ok());
  EXPECT_TRUE(bad.status().IsInvalidArgument());
  EXPECT_EQ(bad.status().message(),
            "\"loud\" is not one of debug, info, warn, error");
}

TEST_F(LogTest, SetAndGetLevel) {
  SetLogLevel(LogLevel::kError);
  EXPECT_EQ(GetLogLevel(), LogLevel::kError);
  SetLogLevel(LogLevel::kDebug);
  EXPECT_EQ(GetLogLevel(), LogLevel::kDebug);
}

// --- the journal's priority prefix
// ------------------------------------------------

TEST_F(LogTest, LinesToTheJournalCarryTheirSyslogPriority) {
  struct stat st;
  ASSERT_EQ(fstat(fds_[1], &st), 0);
  std::string stream =
      std::to_string(st.st_dev) + ":" + std::to_string(st.st_ino);
  ASSERT_EQ(setenv("JOURNAL_STREAM", stream.c_str(), 1), 0);
  SetLogFd(fds_[1]);  // the sink looks at JOURNAL_STREAM when it is set
  SetLogLevel(LogLevel::kDebug);
  Debug("t", "d").Emit();
  Info("t", "i").Emit();
  Warn("t", "w").Emit();
  Error("t", "e").Emit();
  std::vector<std::string> lines = Lines(Drain());
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_EQ(lines[0].substr(0, 4), "<7>{");
  EXPECT_EQ(lines[1].substr(0, 4), "<6>{");
  EXPECT_EQ(lines[2].substr(0, 4), "<4>{");
  EXPECT_EQ(lines[3].substr(0, 4), "<3>{");
  // What follows the prefix is the usual JSON object.
  EXPECT_EQ(StrField(Parse(lines[3].substr(3)).get(), "msg"), "e");
  EXPECT_EQ(JournalPriority(LogLevel::kError), "<3>");

  // Another stream (a pipe the journal does not read): no prefix.
  ASSERT_EQ(setenv("JOURNAL_STREAM", "1:1", 1), 0);
  SetLogFd(fds_[1]);
  Info("t", "plain").Emit();
  lines = Lines(Drain());
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0][0], '{');
  EXPECT_EQ(JournalPriority(LogLevel::kError), "");
  unsetenv("JOURNAL_STREAM");
}

// --- timestamps
// ---------------------------------------------------------------

TEST(FormatTimestampTest, Epoch) {
  EXPECT_EQ(FormatTimestamp(0), "1970-01-01T00:00:00.000Z");
}

TEST(FormatTimestampTest, KnownDates) {
  EXPECT_EQ(FormatTimestamp(kTs), "2025-11-30T09:44:56.123Z");
  EXPECT_EQ(FormatTimestamp(951782400.5), "2000-02-29T00:00:00.500Z");
  EXPECT_EQ(FormatTimestamp(1.25), "1970-01-01T00:00:01.250Z");
}

TEST(FormatTimestampTest, MillisecondsAreRoundedNotTruncated) {
  // 1.001 is 1.000999999... in binary; it must still print .001.
  EXPECT_EQ(FormatTimestamp(1.001), "1970-01-01T00:00:01.001Z");
  EXPECT_EQ(FormatTimestamp(1764495896.007), "2025-11-30T09:44:56.007Z");
  EXPECT_EQ(FormatTimestamp(0.0004), "1970-01-01T00:00:00.000Z");
}

TEST(FormatTimestampTest, RoundingNeverYieldsAThousandMilliseconds) {
  EXPECT_EQ(FormatTimestamp(0.9996), "1970-01-01T00:00:01.000Z");
  EXPECT_EQ(FormatTimestamp(59.99999), "1970-01-01T00:01:00.000Z");
  EXPECT_EQ(FormatTimestamp(86399.9999), "1970-01-02T00:00:00.000Z");
  for (double frac = 0.990; frac < 1.0; frac += 0.0003) {
    std::string ts = FormatTimestamp(1764495896 + frac);
    ASSERT_EQ(ts.size(), 24u) << ts;
    EXPECT_EQ(ts.find(".1000"), std::string::npos) << ts;
    EXPECT_EQ(ts.back(), 'Z') << ts;
  }
}

TEST(FormatTimestampTest, BeforeTheEpoch) {
  EXPECT_EQ(FormatTimestamp(-1.5), "1969-12-31T23:59:58.500Z");
  EXPECT_EQ(FormatTimestamp(-0.0001), "1970-01-01T00:00:00.000Z");
}

TEST(FormatTimestampTest, NonFiniteDoesNotCrash) {
  for (double v : {std::nan(""), std::numeric_limits<double>::infinity(),
                   -std::numeric_limits<double>::infinity(), 1e300}) {
    std::string ts = FormatTimestamp(v);
    EXPECT_FALSE(ts.empty());
    EXPECT_EQ(ts.back(), 'Z') << ts;
  }
}

// --- Format -----------------------------------------------------------------

TEST_F(LogTest, FormatExactText) {
  Event e = Info("job_81", "job completed");
  e.Str("kind", "snapshot_validate")
      .Str("outcome", "completed")
      .Str("state", "COMPLETED")
      .Int("attempts", 2)
      .Num("lag", 1.5)
      .Bool("dry_run", false);
  EXPECT_EQ(e.Format(kTs),
            "{\"ts\":\"2025-11-30T09:44:56.123Z\",\"level\":\"info\","
            "\"id\":\"job_81\",\"msg\":\"job completed\","
            "\"worker\":\"host-a-2\",\"kind\":\"snapshot_validate\","
            "\"outcome\":\"completed\",\"state\":\"COMPLETED\","
            "\"attempts\":2,\"lag\":1.5,\"dry_run\":false}");
}

TEST_F(LogTest, FormatParsesBackWithFieldsInOrder) {
  Event e = Error("job_9", "job dead-lettered");
  e.Int("zeta", -7).Str("alpha", "a").Bool("mid", true).Num("beta", 0.25);
  JsonPtr j = Parse(e.Format(kTs));
  ASSERT_NE(j, nullptr);
  ASSERT_TRUE(json_is_object(j.get()));
  EXPECT_EQ(Keys(j.get()),
            (std::vector<std::string>{"ts", "level", "id", "msg", "worker",
                                      "zeta", "alpha", "mid", "beta"}));
  EXPECT_EQ(StrField(j.get(), "ts"), "2025-11-30T09:44:56.123Z");
  EXPECT_EQ(StrField(j.get(), "level"), "error");
  EXPECT_EQ(StrField(j.get(), "id"), "job_9");
  EXPECT_EQ(StrField(j.get(), "msg"), "job dead-lettered");
  EXPECT_EQ(StrField(j.get(), "worker"), "host-a-2");
  EXPECT_EQ(json_integer_value(json_object_get(j.get(), "zeta")), -7);
  EXPECT_EQ(StrField(j.get(), "alpha"), "a");
  EXPECT_TRUE(json_is_true(json_object_get(j.get(), "mid")));
  EXPECT_DOUBLE_EQ(json_real_value(json_object_get(j.get(), "beta")), 0.25);
}

TEST_F(LogTest, LevelNamesInEvents) {
  EXPECT_NE(Debug("a", "b").Format(0).find("\"level\":\"debug\""),
            std::string::npos);
  EXPECT_NE(Info("a", "b").Format(0).find("\"level\":\"info\""),
            std::string::npos);
  EXPECT_NE(Warn("a", "b").Format(0).find("\"level\":\"warn\""),
            std::string::npos);
  EXPECT_NE(Error("a", "b").Format(0).find("\"level\":\"error\""),
            std::string::npos);
}

TEST_F(LogTest, BaseFieldsWithoutExtras) {
  EXPECT_EQ(Warn("supervisor", "worker exited").Format(0),
            "{\"ts\":\"1970-01-01T00:00:00.000Z\",\"level\":\"warn\","
            "\"id\":\"supervisor\",\"msg\":\"worker exited\","
            "\"worker\":\"host-a-2\"}");
}

TEST_F(LogTest, WorkerFieldFollowsSetLogWorker) {
  SetLogWorker("host-b-7");
  JsonPtr j = Parse(Info("x", "y").Format(0));
  EXPECT_EQ(StrField(j.get(), "worker"), "host-b-7");
}

TEST_F(LogTest, LargeAndNegativeIntegers) {
  Event e = Info("x", "y");
  e.Int("max", std::numeric_limits<int64_t>::max())
      .Int("min", std::numeric_limits<int64_t>::min());
  std::string text = e.Format(0);
  EXPECT_NE(text.find("\"max\":9223372036854775807"), std::string::npos)
      << text;
  EXPECT_NE(text.find("\"min\":-9223372036854775808"), std::string::npos)
      << text;
}

TEST_F(LogTest, NonFiniteDoublesBecomeNull) {
  Event e = Info("x", "y");
  e.Num("nan", std::nan(""))
      .Num("inf", std::numeric_limits<double>::infinity())
      .Num("ninf", -std::numeric_limits<double>::infinity())
      .Num("ok", 2.5);
  std::string text = e.Format(0);
  EXPECT_NE(text.find("\"nan\":null,\"inf\":null,\"ninf\":null,\"ok\":2.5"),
            std::string::npos)
      << text;
  JsonPtr j = Parse(text);
  ASSERT_NE(j, nullptr);
  EXPECT_TRUE(json_is_null(json_object_get(j.get(), "nan")));
}

TEST_F(LogTest, QuotesAndControlCharactersAreEscaped) {
  Event e = Info("id \"quoted\"", "line1\nline2");
  e.Str("s", std::string("a\"b\\c\td\x01\x1f", 9))
      .Str("nul", std::string("x\0y", 3));
  std::string text = e.Format(0);
  EXPECT_EQ(text.find('\n'), std::string::npos) << text;
  EXPECT_EQ(text.find('\t'), std::string::npos) << text;
  EXPECT_NE(text.find("\"id\":\"id \\\"quoted\\\"\""), std::string::npos)
      << text;
  EXPECT_NE(text.find("\"msg\":\"line1\\nline2\""), std::string::npos) << text;
  EXPECT_NE(text.find("\"s\":\"a\\\"b\\\\c\\td\\u0001\\u001F\""),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("\"nul\":\"x\\u0000y\""), std::string::npos) << text;
  JsonPtr j = Parse(text);
  ASSERT_NE(j, nullptr);
  EXPECT_EQ(StrField(j.get(), "msg"), "line1\nline2");
  EXPECT_EQ(StrField(j.get(), "s"), std::string("a\"b\\c\td\x01\x1f", 9));
}

TEST_F(LogTest, NonAsciiIsEscaped) {
  Event e = Info("x", "caf\xc3\xa9");
  std::string text = e.Format(0);
  EXPECT_NE(text.find("\"msg\":\"caf\\u00E9\""), std::string::npos) << text;
}

TEST_F(LogTest, InvalidUtf8DoesNotDropFields) {
  // Bytes from outside (a store key, a server message) may not be UTF-8;
  // the field must survive, with the bad bytes replaced.
  Event e = Info("job_\xff", "bad \xc3 byte");
  e.Str("kind", "k\xe2\x82").Str("after", "ok");
  std::string text = e.Format(0);
  JsonPtr j = Parse(text);
  ASSERT_NE(j, nullptr);
  EXPECT_EQ(Keys(j.get()),
            (std::vector<std::string>{"ts", "level", "id", "msg", "worker",
                                      "kind", "after"}))
      << text;
  EXPECT_EQ(StrField(j.get(), "id"), "job_\xef\xbf\xbd");
  EXPECT_EQ(StrField(j.get(), "msg"), "bad \xef\xbf\xbd byte");
  EXPECT_EQ(StrField(j.get(), "after"), "ok");
  // Overlong encodings and surrogates are invalid too.
  Event f = Info("x", "\xc0\xaf \xed\xa0\x80");
  JsonPtr k = Parse(f.Format(0));
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(StrField(k.get(), "msg").find('\xc0'), std::string::npos);
}

TEST_F(LogTest, AddedFieldsCannotReplaceTheBaseFields) {
  Event e = Info("job_1", "job completed");
  e.Str("worker", "other").Int("level", 3).Str("id", "job_2").Str("k", "v");
  std::string text = e.Format(kTs);
  JsonPtr j = Parse(text);
  ASSERT_NE(j, nullptr);
  EXPECT_EQ(StrField(j.get(), "worker"), "host-a-2") << text;
  EXPECT_EQ(StrField(j.get(), "level"), "info") << text;
  EXPECT_EQ(StrField(j.get(), "id"), "job_1") << text;
  EXPECT_EQ(StrField(j.get(), "k"), "v") << text;
}

TEST_F(LogTest, AFieldAddedTwiceKeepsItsPlaceAndLastValue) {
  Event e = Info("x", "y");
  e.Str("a", "1").Int("b", 2).Str("a", "3");
  EXPECT_EQ(e.Format(0),
            "{\"ts\":\"1970-01-01T00:00:00.000Z\",\"level\":\"info\","
            "\"id\":\"x\",\"msg\":\"y\",\"worker\":\"host-a-2\","
            "\"a\":\"3\",\"b\":2}");
}

TEST_F(LogTest, SecretsAreScrubbedFromEveryString) {
  RegisterSecret("s3cretpw");
  SetLogWorker("w-s3cretpw");
  Event e = Error("job_s3cretpw", "auth s3cretpw failed");
  e.Str("error", "password \"s3cretpw\" rejected");
  std::string text = e.Format(0);
  EXPECT_EQ(text.find("s3cretpw"), std::string::npos) << text;
  JsonPtr j = Parse(text);
  ASSERT_NE(j, nullptr);
  EXPECT_EQ(StrField(j.get(), "msg"), "auth ******** failed");
  EXPECT_EQ(StrField(j.get(), "error"), "password \"********\" rejected");
  EXPECT_EQ(StrField(j.get(), "id"), "job_********");
  EXPECT_EQ(StrField(j.get(), "worker"), "w-********");
}

// --- Emit -------------------------------------------------------------------

TEST_F(LogTest, EmitWritesOneLinePerEvent) {
  Info("job_1", "job completed").Str("kind", "gc_sweep").Emit();
  Warn("job_2", "job retried after transient failure").Emit();
  Error("job_3", "multi\nline\nmessage").Emit();
  std::vector<std::string> lines = Lines(Drain());
  ASSERT_EQ(lines.size(), 3u);
  const char* ids[] = {"job_1", "job_2", "job_3"};
  for (size_t i = 0; i < lines.size(); ++i) {
    JsonPtr j = Parse(lines[i]);
    ASSERT_NE(j, nullptr);
    EXPECT_EQ(StrField(j.get(), "id"), ids[i]);
    EXPECT_EQ(StrField(j.get(), "worker"), "host-a-2");
    // ts is a real, current timestamp.
    std::string ts = StrField(j.get(), "ts");
    EXPECT_EQ(ts.size(), 24u) << ts;
    EXPECT_GE(ts.substr(0, 4), "2024") << ts;
  }
  EXPECT_EQ(Drain(), "");
}

TEST_F(LogTest, EmitRespectsTheLevelThreshold) {
  SetLogLevel(LogLevel::kWarn);
  Debug("d", "m").Emit();
  Info("i", "m").Emit();
  Warn("w", "m").Emit();
  Error("e", "m").Emit();
  std::vector<std::string> lines = Lines(Drain());
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_NE(lines[0].find("\"id\":\"w\""), std::string::npos);
  EXPECT_NE(lines[1].find("\"id\":\"e\""), std::string::npos);

  SetLogLevel(LogLevel::kDebug);
  Debug("d", "m").Emit();
  EXPECT_EQ(Lines(Drain()).size(), 1u);

  SetLogLevel(LogLevel::kError);
  Warn("w", "m").Emit();
  EXPECT_EQ(Drain(), "");
  Error("e", "m").Emit();
  EXPECT_EQ(Lines(Drain()).size(), 1u);
}

TEST_F(LogTest, EmitScrubsSecrets) {
  RegisterSecret("hunter2hunter2");
  Error("job_5", "failed").Str("error", "pw=hunter2hunter2").Emit();
  std::string out = Drain();
  EXPECT_EQ(out.find("hunter2hunter2"), std::string::npos) << out;
  EXPECT_NE(out.find("pw=********"), std::string::npos) << out;
}

TEST_F(LogTest, EmitToAClosedFdDoesNotCrash) {
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  close(fds[1]);
  SetLogFd(fds[1]);
  Info("x", "y").Emit();  // EBADF: dropped silently
  SetLogFd(fds_[1]);
  close(fds[0]);
  Info("x", "y").Emit();
  EXPECT_EQ(Lines(Drain()).size(), 1u);
}

}  // namespace
}  // namespace awc::obs
