#include "config/config_test_fixture.h"

namespace awc::config {
namespace {

TEST_F(ConfigTest, IniUnknownKeyNamesFileAndLine) {
  std::string ini = Write("x.ini", "[worker]\nconcurrency = 2\nthreads = 4\n");
  EXPECT_EQ(LoadError(ini),
            ini + ":3: unknown key \"threads\" in section [worker]");
}

// An error is one line: a control byte in the file's name or in a key it
// quotes is written \xHH.
TEST_F(ConfigTest, IniErrorsAreOneLine) {
  std::string ini =
      Write("x\nAWC_GC_DRY_RUN = true.ini", "[worker]\nk\x1b[2Jey = 1\n");
  EXPECT_EQ(LoadError(ini), dir_ +
                                "/x\\x0aAWC_GC_DRY_RUN = true.ini:2: unknown "
                                "key \"k\\x1b[2Jey\" in section [worker]");
  std::string missing = dir_ + "/no\rsuch.ini";
  EXPECT_EQ(LoadError(missing),
            "cannot read configuration file: cannot open \"" + dir_ +
                "/no\\x0dsuch.ini\": No such file or "
                "directory");
}

TEST_F(ConfigTest, IniUnknownSectionNamesFileAndLine) {
  // The header's line, not the line of its first key.
  std::string ini = Write("x.ini", "\n[workers]\nconcurrency = 2\n");
  EXPECT_EQ(LoadError(ini), ini + ":2: unknown section [workers]");
}

TEST_F(ConfigTest, IniUnknownSectionWithoutKeysIsAnError) {
  std::string ini =
      Write("x.ini", "[worker]\nconcurrency = 2\n\n[Worker]\n; empty\n");
  EXPECT_EQ(LoadError(ini), ini + ":4: unknown section [Worker]");
}

TEST_F(ConfigTest, IniCrlfLineEndingsAndBom) {
  std::string ini = Write("x.ini",
                          "\xEF\xBB\xBF[worker]\r\nconcurrency = 7\r\n"
                          "id = host-c ; inline comment\r\n[gc]\r\n"
                          "dry_run = 1\r\n");
  Result<Config> c = Load(ini);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->settings().worker_concurrency, 7);
  EXPECT_EQ(c->settings().worker_id, "host-c");
  EXPECT_TRUE(c->settings().gc_dry_run);
}

TEST_F(ConfigTest, IniKeyOutsideASectionIsAnError) {
  std::string ini = Write("x.ini", "concurrency = 2\n");
  std::string err = LoadError(ini);
  EXPECT_EQ(err.rfind(ini + ":1: ", 0), 0u) << err;
  EXPECT_NE(err.find("concurrency"), std::string::npos) << err;
}

TEST_F(ConfigTest, IniKeyOfAnotherSectionIsUnknown) {
  // batch_size belongs to [gc], not [worker].
  std::string ini = Write("x.ini", "[worker]\nbatch_size = 2\n");
  EXPECT_EQ(LoadError(ini),
            ini + ":2: unknown key \"batch_size\" in section [worker]");
}

TEST_F(ConfigTest, IniSyntaxErrorNamesFileAndLine) {
  std::string ini = Write("x.ini", "[worker]\nconcurrency = 2\njust words\n");
  EXPECT_EQ(LoadError(ini), ini + ":3: syntax error");
  ini = Write("y.ini", "[worker\nconcurrency = 2\n");
  EXPECT_EQ(LoadError(ini), ini + ":1: syntax error");
}

TEST_F(ConfigTest, IniReportsTheFirstErrorWithItsOwnLine) {
  // A syntax error on line 2 comes before the unknown key on line 4: the
  // message must describe line 2, not pair line 2 with line 4's problem.
  std::string ini = Write(
      "x.ini", "[worker]\nno equals sign here\nconcurrency = 2\nbogus = 1\n");
  EXPECT_EQ(LoadError(ini), ini + ":2: syntax error");
  // And the other way round.
  ini = Write("y.ini", "[worker]\nbogus = 1\nno equals sign here\n");
  EXPECT_EQ(LoadError(ini),
            ini + ":2: unknown key \"bogus\" in section [worker]");
}

TEST_F(ConfigTest, IniBadValueNamesFileLineKeyAndVariable) {
  std::string ini =
      Write("x.ini", "[worker]\nid = host-a\nconcurrency = four\n");
  EXPECT_EQ(LoadError(ini),
            ini +
                ":3: [worker] concurrency (AWC_WORKER_CONCURRENCY): \"four\" "
                "is not an integer");
  ini = Write("y.ini", "[gc]\n\n\n\ndry_run = maybe\n");
  std::string err = LoadError(ini);
  EXPECT_EQ(err.rfind(ini + ":5: [gc] dry_run (AWC_GC_DRY_RUN): ", 0), 0u)
      << err;
  ini = Write("z.ini", "[worker]\nlease_secs = -5\n");
  err = LoadError(ini);
  EXPECT_EQ(err.rfind(ini + ":2: [worker] lease_secs (AWC_WORKER_LEASE_SECS): "
                            "-5 is out of range",
                      0),
            0u)
      << err;
}

TEST_F(ConfigTest, IniInvalidDatabaseUrlDoesNotEchoIt) {
  std::string ini =
      Write("x.ini", "[database]\nurl = host=h password=s3cretpw nope=1\n");
  std::string err = LoadError(ini);
  EXPECT_EQ(err.rfind(ini + ":2: [database] url (DATABASE_URL): ", 0), 0u)
      << err;
  EXPECT_EQ(err.find("s3cretpw"), std::string::npos) << err;
}

TEST_F(ConfigTest, IniErrorAfterEnvironmentIsStillAnError) {
  // The environment cannot paper over a broken file.
  std::string ini = Write("x.ini", "[worker]\nconcurrency = zero\n");
  env_ = {{"AWC_WORKER_CONCURRENCY", "2"}};
  EXPECT_NE(LoadError(ini).find(ini + ":2:"), std::string::npos);
}

TEST_F(ConfigTest, IniLinesAsLongAsAnyValue) {
  // A long DATABASE_URL (many options, a long host list) works in the file
  // as it does in the environment.
  std::string url = "postgresql://user@" + std::string(4000, 'h') + "/db";
  std::string ini = Write(
      "x.ini", "[database]\nurl = " + url + "\n[worker]\nconcurrency = 3\n");
  Result<Config> c = Load(ini);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->settings().database_url, url);
  EXPECT_EQ(c->settings().worker_concurrency, 3);
}

TEST_F(ConfigTest, IniDuplicateKeyIsAnError) {
  // Not silently "the last one wins": the file says two things.
  std::string ini =
      Write("x.ini", "[worker]\nconcurrency = 2\nid = a\nconcurrency = 3\n");
  EXPECT_EQ(LoadError(ini), ini +
                                ":4: duplicate key \"concurrency\" in section "
                                "[worker] (first set on line 2)");
  // Also when the section appears twice.
  ini =
      Write("y.ini", "[worker]\nid = a\n[gc]\ndry_run = 1\n[worker]\nid = b\n");
  EXPECT_EQ(LoadError(ini),
            ini +
                ":6: duplicate key \"id\" in section [worker] (first set on "
                "line 2)");
}

TEST_F(ConfigTest, IniNulByteIsAnError) {
  // A NUL would otherwise cut the line short without a word.
  std::string ini = Write(
      "x.ini", std::string("[worker]\nid = ab\0cd\nconcurrency = 2\n", 36));
  EXPECT_EQ(LoadError(ini), ini + ":2: NUL byte in the line");
}

TEST_F(ConfigTest, IniFileMustBeABoundedRegularFile) {
  std::string fifo = dir_ + "/fifo.ini";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_EQ(LoadError(fifo), "cannot read configuration file: cannot open \"" +
                                 fifo + "\": not a regular file (a FIFO)");
  EXPECT_EQ(LoadError("/dev/zero"),
            "cannot read configuration file: cannot open \"/dev/zero\": not "
            "a regular file (a device)");
  std::string big = Write("big.ini", std::string(1024 * 1024 + 1, '\n'));
  EXPECT_EQ(LoadError(big), "cannot read configuration file: \"" + big +
                                "\" is larger than 1048576 bytes");
}

// --- secrets
// ----------------------------------------------------------------------

}  // namespace
}  // namespace awc::config
