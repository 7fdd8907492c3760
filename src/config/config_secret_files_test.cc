// Secrets given as files: the _FILE variants of the secret settings, in
// the environment and in the INI file, and how their errors read.
#include "common/host_name.h"
#include "config/config_test_fixture.h"

namespace awc::config {
namespace {

TEST_F(ConfigTest, FileVariantsStripTheTrailingNewline) {
  env_ = {{"AWC_S3_ACCESS_KEY_ID_FILE", Write("id", "AKID123\n")},
          {"AWC_S3_SECRET_ACCESS_KEY_FILE", Write("sk", "sk/with+chars==\n")}};
  Result<Config> c = Load();
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->settings().s3_access_key_id, "AKID123");
  EXPECT_EQ(c->settings().s3_secret_access_key, "sk/with+chars==");
  // Leading whitespace and inner content are kept as written.
  env_ = {{"AWC_S3_SECRET_ACCESS_KEY_FILE", Write("sk2", " a b\n\n")}};
  c = Load();
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->settings().s3_secret_access_key, " a b");
  // No newline at all.
  env_ = {{"AWC_S3_SECRET_ACCESS_KEY_FILE", Write("sk3", "plainkey")}};
  c = Load();
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->settings().s3_secret_access_key, "plainkey");
}

TEST_F(ConfigTest, FileVariantOfTheSecretIsRegisteredForScrubbing) {
  env_ = {{"AWC_S3_SECRET_ACCESS_KEY_FILE", Write("sk", "topsecretkey\n")}};
  ASSERT_TRUE(Load().ok());
  EXPECT_EQ(Scrub("sig topsecretkey"), "sig ********");
}

// The repair store's secret key is as secret as the store's: no later
// output shows it, whichever way it was given.
TEST_F(ConfigTest, TheRepairStoresSecretIsRegisteredForScrubbing) {
  env_ = {{"AWC_S3_REPAIR_ACCESS_KEY_ID", "AKIDREPAIR"},
          {"AWC_S3_REPAIR_SECRET_ACCESS_KEY", "r3pairS3cretKey"}};
  ASSERT_TRUE(Load().ok());
  EXPECT_EQ(Scrub("sig r3pairS3cretKey"), "sig ********");
  ClearSecrets();
  env_ = {{"AWC_S3_REPAIR_ACCESS_KEY_ID", "AKIDREPAIR"},
          {"AWC_S3_REPAIR_SECRET_ACCESS_KEY_FILE",
           Write("rsk", "r3pairFil3Key\n")}};
  ASSERT_TRUE(Load().ok());
  EXPECT_EQ(Scrub("sig r3pairFil3Key"), "sig ********");
}

TEST_F(ConfigTest, BothValueAndFileIsAnError) {
  std::string f = Write("id", "AKID\n");
  env_ = {{"AWC_S3_ACCESS_KEY_ID", "AKID"}, {"AWC_S3_ACCESS_KEY_ID_FILE", f}};
  EXPECT_EQ(LoadError(),
            "AWC_S3_ACCESS_KEY_ID: set AWC_S3_ACCESS_KEY_ID or "
            "AWC_S3_ACCESS_KEY_ID_FILE, not both");
  env_ = {{"AWC_S3_SECRET_ACCESS_KEY", "x1234"},
          {"AWC_S3_SECRET_ACCESS_KEY_FILE", f}};
  std::string err = LoadError();
  EXPECT_EQ(err.rfind("AWC_S3_SECRET_ACCESS_KEY: ", 0), 0u) << err;
  EXPECT_EQ(err.find("x1234"), std::string::npos) << err;
}

TEST_F(ConfigTest, UnreadableFileVariantIsAnError) {
  std::string missing = dir_ + "/no-such-secret";
  env_ = {{"AWC_S3_SECRET_ACCESS_KEY_FILE", missing}};
  std::string err = LoadError();
  EXPECT_EQ(err.rfind("AWC_S3_SECRET_ACCESS_KEY_FILE: ", 0), 0u) << err;
  EXPECT_NE(err.find(missing), std::string::npos) << err;
  // A directory cannot be read as a secret either.
  env_ = {{"AWC_S3_ACCESS_KEY_ID_FILE", dir_}};
  err = LoadError();
  EXPECT_EQ(err.rfind("AWC_S3_ACCESS_KEY_ID_FILE: ", 0), 0u) << err;
}

TEST_F(ConfigTest, FileVariantMustBeARegularFile) {
  // An endless device or a FIFO without a writer would grow memory for
  // ever or block startup; both are refused at once, by name.
  std::string fifo = dir_ + "/fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  env_ = {{"AWC_S3_SECRET_ACCESS_KEY_FILE", "/dev/zero"}};
  EXPECT_EQ(LoadError(),
            "AWC_S3_SECRET_ACCESS_KEY_FILE: cannot open \"/dev/zero\": not a "
            "regular file (a device)");
  env_ = {{"AWC_S3_ACCESS_KEY_ID_FILE", fifo}};
  EXPECT_EQ(LoadError(), "AWC_S3_ACCESS_KEY_ID_FILE: cannot open \"" + fifo +
                             "\": not a regular file (a FIFO)");
  // A symbolic link to a regular file (as mounted secrets are) is fine.
  std::string link = dir_ + "/link";
  ASSERT_EQ(symlink(Write("sk", "linkedsecret\n").c_str(), link.c_str()), 0);
  env_ = {{"AWC_S3_SECRET_ACCESS_KEY_FILE", link}};
  Result<Config> c = Load();
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->settings().s3_secret_access_key, "linkedsecret");
}

TEST_F(ConfigTest, FileVariantSizeIsBounded) {
  // 64 KiB is plenty for a credential, and bounds what a wrong path can
  // cost.
  std::string big = Write("big", std::string(64 * 1024, 'k'));
  env_ = {{"AWC_S3_SECRET_ACCESS_KEY_FILE", big}};
  Result<Config> c = Load();
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->settings().s3_secret_access_key.size(), 64u * 1024);
  std::string bigger = Write("bigger", std::string(64 * 1024 + 1, 'k'));
  env_ = {{"AWC_S3_SECRET_ACCESS_KEY_FILE", bigger}};
  EXPECT_EQ(LoadError(), "AWC_S3_SECRET_ACCESS_KEY_FILE: \"" + bigger +
                             "\" is larger than 65536 bytes");
  std::string ini =
      Write("s3.ini", "[s3]\naccess_key_id_file = " + bigger + "\n");
  env_ = {};
  EXPECT_EQ(LoadError(ini), ini + ":2: [s3] access_key_id_file: \"" + bigger +
                                "\" is larger than 65536 bytes");
}

TEST_F(ConfigTest, FileVariantOnlyExistsForSecrets) {
  // AWC_WORKER_ID_FILE is not a setting: ignored, not read.
  env_ = {{"AWC_WORKER_ID_FILE", dir_ + "/missing"}};
  Result<Config> c = Load();
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->settings().worker_id, DefaultWorkerId(HostName()));
}

TEST_F(ConfigTest, DatabaseUrlFromAFileIsASecret) {
  env_ = {{"DATABASE_URL_FILE",
           Write("url", "postgresql://awc:Fil3-Pw@db.example/awc\n")}};
  Result<Config> c = Load();
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->settings().database_url,
            "postgresql://awc:Fil3-Pw@db.example/awc");
  EXPECT_EQ(Scrub("x Fil3-Pw y"), "x ******** y");
  Line line = Find(c->Describe(), "DATABASE_URL");
  EXPECT_EQ(line.value, "postgresql://awc:********@db.example/awc");
  // The INI form, and the value is checked like DATABASE_URL.
  std::string ini = Write(
      "db.ini",
      "[database]\nurl_file = " + Write("bad", "host='unterminated\n") + "\n");
  env_ = {};
  std::string err = LoadError(ini);
  EXPECT_NE(err.find("[database] url_file (DATABASE_URL): not a valid "
                     "PostgreSQL connection string"),
            std::string::npos)
      << err;
}

TEST_F(ConfigTest, SecretFilesMustBeSmallRegularFiles) {
  env_ = {{"DATABASE_URL_FILE", "/dev/null"}};
  std::string err = LoadError();
  EXPECT_EQ(err,
            "DATABASE_URL_FILE: cannot open \"/dev/null\": not a regular file "
            "(a device)");
  env_ = {{"DATABASE_URL_FILE", dir_}};
  EXPECT_EQ(LoadError(), "DATABASE_URL_FILE: cannot open \"" + dir_ +
                             "\": not a regular file (a directory)");
  std::string big = Write("big", std::string(65537, 'x'));
  env_ = {{"DATABASE_URL_FILE", big}};
  EXPECT_EQ(LoadError(),
            "DATABASE_URL_FILE: \"" + big + "\" is larger than 65536 bytes");
  std::string fits = Write("fits", "dbname=" + std::string(65536 - 7, 'x'));
  env_ = {{"DATABASE_URL_FILE", fits}};
  EXPECT_TRUE(Load().ok());
}

// A secret set by mistake where its path belongs is not echoed back: a
// URL is shown with its credentials masked and a hint, and a value that is
// no absolute or ./ path is not shown at all.
TEST_F(ConfigTest, ASecretGivenForItsPathIsNotShown) {
  const std::string kHint =
      " (this looks like a URL: the setting takes the path of a file holding "
      "it)";
  const std::string kNotShown =
      "cannot open the file it names (not shown: not an absolute or ./ path, "
      "it may be the secret itself): No such file or directory";
  struct Case {
    std::string var, value, error;
  } cases[] = {
      {"DATABASE_URL_FILE", "postgresql://awc:SECRETPW@host/db",
       "DATABASE_URL_FILE: cannot open \"postgresql://awc:********@host/db\": "
       "No such file or directory" +
           kHint},
      {"DATABASE_URL_FILE", "postgres://awc@host/db?password=SECRETPW",
       "DATABASE_URL_FILE: cannot open \"postgres://awc@host/"
       "db?password=********\": No such file or directory" +
           kHint},
      {"AWC_S3_SECRET_ACCESS_KEY_FILE", "s3://AKID:SECRETPW@bucket/x",
       "AWC_S3_SECRET_ACCESS_KEY_FILE: cannot open \"s3://********\": No "
       "such file or directory" +
           kHint},
      {"AWC_S3_SECRET_ACCESS_KEY_FILE", "SECRETPW/K7MDENG+bPxRfiCY",
       "AWC_S3_SECRET_ACCESS_KEY_FILE: " + kNotShown},
      {"DATABASE_URL_FILE", "host=db password=SECRETPW",
       "DATABASE_URL_FILE: " + kNotShown},
      {"DATABASE_URL_FILE", "password=SECRETPW options=a://b",
       "DATABASE_URL_FILE: " + kNotShown},
      {"AWC_S3_ACCESS_KEY_ID_FILE", "SECRETPW",
       "AWC_S3_ACCESS_KEY_ID_FILE: " + kNotShown},
      // Paths are shown as they are.
      {"DATABASE_URL_FILE", "./no-such-file",
       "DATABASE_URL_FILE: cannot open \"./no-such-file\": No such file or "
       "directory"},
      {"DATABASE_URL_FILE", "/run/credentials/none",
       "DATABASE_URL_FILE: cannot open \"/run/credentials/none\": No such "
       "file or directory"},
  };
  for (const Case& c : cases) {
    env_ = {{c.var, c.value}};
    std::string err = LoadError();
    EXPECT_EQ(err, c.error);
    EXPECT_EQ(err.find("SECRETPW"), std::string::npos) << err;
  }
  // The INI file's _file keys alike.
  env_ = {};
  std::string ini = Write(
      "db.ini", "[database]\nurl_file = postgresql://awc:SECRETPW@host/db\n");
  EXPECT_EQ(LoadError(ini),
            ini +
                ":2: [database] url_file: cannot open "
                "\"postgresql://awc:********@host/db\": No such file or "
                "directory" +
                kHint);
  ini = Write("s3.ini", "[s3]\nsecret_access_key_file = SECRETPW+x/y\n");
  EXPECT_EQ(LoadError(ini),
            ini + ":2: [s3] secret_access_key_file: " + kNotShown);
}

TEST_F(ConfigTest, PgPasswordIsASecret) {
  env_ = {{"PGPASSWORD", "Env-Pg-Pw"}};
  ASSERT_TRUE(Load().ok());
  EXPECT_EQ(Scrub("a Env-Pg-Pw b"), "a ******** b");
}

TEST_F(ConfigTest, IniFileVariants) {
  std::string id = Write("id", "AKIDVIAINI\n");
  std::string sk = Write("sk", "secretviaini\n");
  std::string ini =
      Write("s3.ini", "[s3]\naccess_key_id_file = " + id +
                          "\nsecret_access_key_file = " + sk + "\n");
  Result<Config> c = Load(ini);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->settings().s3_access_key_id, "AKIDVIAINI");
  EXPECT_EQ(c->settings().s3_secret_access_key, "secretviaini");
  // The environment still wins over the file's _file key.
  env_ = {{"AWC_S3_SECRET_ACCESS_KEY", "envsecret"}};
  c = Load(ini);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->settings().s3_secret_access_key, "envsecret");
}

TEST_F(ConfigTest, IniUnreadableFileVariantNamesFileAndLine) {
  std::string missing = dir_ + "/gone";
  std::string ini = Write(
      "s3.ini", "[s3]\nregion = x\nsecret_access_key_file = " + missing + "\n");
  std::string err = LoadError(ini);
  EXPECT_EQ(err.rfind(ini + ":3: ", 0), 0u) << err;
  EXPECT_NE(err.find("secret_access_key_file"), std::string::npos) << err;
  EXPECT_NE(err.find(missing), std::string::npos) << err;
}

TEST_F(ConfigTest, IniValueAndFileVariantTogetherIsAnError) {
  std::string sk = Write("sk", "secretviaini\n");
  std::string ini = Write("s3.ini",
                          "[s3]\nsecret_access_key = inlinesecret\n"
                          "secret_access_key_file = " +
                              sk + "\n");
  std::string err = LoadError(ini);
  EXPECT_EQ(err.rfind(ini + ":3: ", 0), 0u) << err;
  EXPECT_NE(err.find("not both"), std::string::npos) << err;
  EXPECT_EQ(err.find("inlinesecret"), std::string::npos) << err;
}

}  // namespace
}  // namespace awc::config
