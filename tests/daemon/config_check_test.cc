// `awc-worker -t` refuses exactly what startup refuses. For every refusal an
// operator can cause with an object-store setting, the check mode and a real
// start with the same settings both exit 1 with the same one-line
// "awc-worker: <message>", the message names the setting, startup stops
// before touching the database, and no credential appears in any output.
#include <gtest/gtest.h>

#include <ostream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "tests/support/harness.h"

namespace awc::testing {
namespace {

using EnvList = std::vector<std::pair<std::string, std::string>>;

struct Refusal {
  const char* name;                       // test name
  EnvList env;                            // on top of DATABASE_URL
  std::string setting;                    // the setting the message must name
  std::string message;                    // after "awc-worker: "
  std::vector<std::string> secrets = {};  // must appear in no output
};

// gtest prints a parameter by its name in test listings.
void PrintTo(const Refusal& r, std::ostream* os) { *os << r.name; }

const std::string kPair =
    "AWC_S3_ACCESS_KEY_ID and AWC_S3_SECRET_ACCESS_KEY must be set together";

std::vector<Refusal> Refusals() {
  std::vector<Refusal> r = {
      {"CasUrlSchemeUnsupported",
       {{"AWC_CAS_URL", "ftp://x/y"}},
       "AWC_CAS_URL",
       "AWC_CAS_URL: unsupported scheme \"ftp://\" (expected memory://, "
       "file:///absolute/path or s3://bucket[/prefix])"},
      {"CasUrlRelativePath",
       {{"AWC_CAS_URL", "file://relative/path"}},
       "AWC_CAS_URL",
       "AWC_CAS_URL: file:// needs an absolute path, as in "
       "file:///var/lib/awc"},
  };
#if AWC_WITH_S3
  std::vector<Refusal> s3 = {
      {"EndpointSchemeIsNotHttp",
       {{"AWC_CAS_URL", "s3://awc-bucket"},
        {"AWC_S3_ENDPOINT", "ftp://s3.example"}},
       "AWC_S3_ENDPOINT",
       "AWC_S3_ENDPOINT: the scheme must be http or https"},
      {"EndpointIsNotAUrl",
       {{"AWC_CAS_URL", "s3://awc-bucket"}, {"AWC_S3_ENDPOINT", "notaurl"}},
       "AWC_S3_ENDPOINT",
       "AWC_S3_ENDPOINT: expected http://host[:port] or https://host[:port]"},
      {"EndpointCarriesCredentials",
       {{"AWC_CAS_URL", "s3://awc-bucket"},
        {"AWC_S3_ENDPOINT", "https://AKIDINURL:Endpoint-Secret-9@s3.example"}},
       "AWC_S3_ENDPOINT",
       "AWC_S3_ENDPOINT: must not carry credentials; use AWC_S3_ACCESS_KEY_ID "
       "and AWC_S3_SECRET_ACCESS_KEY",
       {"AKIDINURL", "Endpoint-Secret-9"}},
      {"EmptyRegion",
       {{"AWC_CAS_URL", "s3://awc-bucket"}, {"AWC_S3_REGION", ""}},
       "AWC_S3_REGION",
       "AWC_S3_REGION: empty value; leave the setting unset to use its "
       "default"},
      {"KeyIdWithoutSecret",
       {{"AWC_CAS_URL", "s3://awc-bucket"},
        {"AWC_S3_ACCESS_KEY_ID", "AKIDALONE"}},
       "AWC_S3_ACCESS_KEY_ID",
       kPair},
      {"SecretWithoutKeyId",
       {{"AWC_CAS_URL", "s3://awc-bucket"},
        {"AWC_S3_SECRET_ACCESS_KEY", "Lone-Secret-42"}},
       "AWC_S3_SECRET_ACCESS_KEY",
       kPair,
       {"Lone-Secret-42"}},
      {"ConcurrencyAboveTheTable",
       {{"AWC_CAS_URL", "s3://awc-bucket"}, {"AWC_S3_MAX_CONCURRENCY", "300"}},
       "AWC_S3_MAX_CONCURRENCY",
       "AWC_S3_MAX_CONCURRENCY: 300 is out of range (1..256)"},
      {"CasUrlCarriesCredentials",
       {{"AWC_CAS_URL", "s3://AKIDCASURL:Url-Secret-5@awc-bucket"}},
       "AWC_CAS_URL",
       "AWC_CAS_URL: s3:// URLs must not carry credentials; use "
       "AWC_S3_ACCESS_KEY_ID and AWC_S3_SECRET_ACCESS_KEY",
       {"AKIDCASURL", "Url-Secret-5"}},
  };
  r.insert(r.end(), s3.begin(), s3.end());
#else
  r.push_back({"S3StoreNotBuilt",
               {{"AWC_CAS_URL", "s3://AKIDCASURL:Url-Secret-5@awc-bucket"}},
               "AWC_CAS_URL",
               "AWC_CAS_URL: s3:// is not supported by this build; rebuild "
               "with cmake -DAWC_WITH_S3=ON (needs libcurl4-openssl-dev)",
               {"AKIDCASURL", "Url-Secret-5"}});
#endif
  return r;
}

class ConfigCheckTest : public ::testing::TestWithParam<Refusal> {};

TEST_P(ConfigCheckTest, CheckModeAndStartupRefuseAlike) {
  const Refusal& c = GetParam();
  ASSERT_NE(c.message.find(c.setting), std::string::npos)
      << "the expected message must name " << c.setting;
  // A real database: were the settings not refused first, startup would go
  // on to migrate it and open the store.
  TestDatabase db;
  EnvList env = c.env;
  env.emplace_back("DATABASE_URL", db.url());
  CommandResult check = RunProcess(ShippedDaemonPath(), {"-t"}, env);
  CommandResult start = RunProcess(ShippedDaemonPath(), {}, env);
  const std::string expected = "awc-worker: " + c.message + "\n";
  EXPECT_EQ(check.code, 1) << check.err;
  EXPECT_EQ(start.code, 1) << start.err;
  EXPECT_EQ(check.err, expected);
  EXPECT_EQ(start.err, expected);  // one line: nothing was started
  EXPECT_EQ(check.out, "");
  EXPECT_EQ(start.out, "");
  EXPECT_EQ(db.Scalar("SELECT count(*) FROM pg_namespace WHERE nspname = "
                      "'awc'"),
            "0")
      << "startup migrated the database before refusing the settings";
  for (const std::string& secret : c.secrets) {
    for (const CommandResult* r : {&check, &start}) {
      EXPECT_EQ(r->out.find(secret), std::string::npos) << r->out;
      EXPECT_EQ(r->err.find(secret), std::string::npos) << r->err;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(StoreSettings, ConfigCheckTest,
                         ::testing::ValuesIn(Refusals()),
                         [](const ::testing::TestParamInfo<Refusal>& p) {
                           return std::string(p.param.name);
                         });

// A secret set where the path of its file belongs: -t and a real start
// refuse it naming the setting, and show it nowhere.
TEST(ConfigCheckSecretFileTest, ASecretGivenForItsPathIsNotEchoed) {
  TempDir dir;
  dir.Write("awc.conf",
            "[database]\nurl_file = postgresql://awc:SECRETPW@host/db\n");
  const std::string url = "postgresql://awc:SECRETPW@host/db";
  const std::vector<std::pair<std::vector<std::string>, EnvList>> runs = {
      {{}, {{"DATABASE_URL_FILE", url}, {"AWC_CAS_URL", "memory://"}}},
      {{"-c", dir.path() + "/awc.conf"}, {{"AWC_CAS_URL", "memory://"}}},
      {{},
       {{"DATABASE_URL", "postgresql://awc@db.example/awc"},
        {"AWC_CAS_URL", "memory://"},
        {"AWC_S3_SECRET_ACCESS_KEY_FILE", "SECRETPW/K7MDENG+bPxRfiCY"}}},
      {{},
       {{"DATABASE_URL", "postgresql://awc@db.example/awc"},
        {"AWC_CAS_URL", "memory://"},
        {"AWC_S3_SECRET_ACCESS_KEY_FILE", "s3://AKID:SECRETPW@bucket"}}},
  };
  for (const auto& [args, env] : runs) {
    std::vector<std::string> check_args = args;
    check_args.push_back("-t");
    CommandResult check = RunProcess(ShippedDaemonPath(), check_args, env);
    CommandResult start = RunProcess(ShippedDaemonPath(), args, env);
    for (const CommandResult* r : {&check, &start}) {
      EXPECT_EQ(r->code, 1) << r->err;
      EXPECT_TRUE(r->err.starts_with("awc-worker: ")) << r->err;
      EXPECT_NE(r->err.find("cannot open"), std::string::npos) << r->err;
      EXPECT_EQ(r->out.find("SECRETPW"), std::string::npos) << r->out;
      EXPECT_EQ(r->err.find("SECRETPW"), std::string::npos) << r->err;
    }
    EXPECT_EQ(check.err, start.err);
  }
}

// A newline in a value would forge a line of -t's output: it is refused,
// by -t and by startup alike, naming the setting. What -t does show (blanks
// between key=value pairs, a file name with a newline) is one line each.
TEST(ConfigCheckControlByteTest, ANewlineInAValueForgesNoLine) {
  auto lines_starting = [](const std::string& text, const std::string& head) {
    std::istringstream in(text);
    int n = 0;
    for (std::string line; std::getline(in, line);) n += line.starts_with(head);
    return n;
  };
  EnvList forged = {{"DATABASE_URL",
                     "postgresql://x/db\nAWC_GC_DRY_RUN = true # environment"},
                    {"AWC_CAS_URL", "memory://"}};
  CommandResult check = RunProcess(ShippedDaemonPath(), {"-t"}, forged);
  CommandResult start = RunProcess(ShippedDaemonPath(), {}, forged);
  for (const CommandResult* r : {&check, &start}) {
    EXPECT_EQ(r->code, 1) << r->out << r->err;
    EXPECT_EQ(r->err,
              "awc-worker: DATABASE_URL: control character 0x0a in the value "
              "(at byte 18)\n");
    EXPECT_EQ(lines_starting(r->out, "DATABASE_URL"), 0) << r->out;
    EXPECT_EQ(lines_starting(r->out + r->err, "AWC_GC_DRY_RUN"), 0) << r->out;
  }

  TempDir dir;
  const std::string name = "awc\nAWC_GC_DRY_RUN = true # environment.conf";
  dir.Write(name, "[worker]\nid = w1\n");
  CommandResult shown = RunProcess(
      ShippedDaemonPath(), {"-t", "-c", dir.path() + "/" + name},
      {{"DATABASE_URL", "dbname=db\nhost=db.example\tpassword=SECRETPW"},
       {"AWC_CAS_URL", "memory://"}});
  EXPECT_EQ(shown.code, 0) << shown.err;
  EXPECT_EQ(lines_starting(shown.out,
                           "DATABASE_URL = password=******** dbname=db "
                           "host=db.example "),
            1)
      << shown.out;
  EXPECT_EQ(lines_starting(shown.out, "DATABASE_URL"), 1) << shown.out;
  EXPECT_EQ(lines_starting(shown.out, "AWC_GC_DRY_RUN = false "), 1)
      << shown.out;
  EXPECT_EQ(lines_starting(shown.out, "AWC_GC_DRY_RUN"), 1) << shown.out;
  EXPECT_EQ(lines_starting(shown.out, "AWC_") + 1,
            lines_starting(shown.out, ""));
  EXPECT_EQ((shown.out + shown.err).find("SECRETPW"), std::string::npos);
  // The closing line names the file on one line too.
  EXPECT_EQ(lines_starting(shown.err, "AWC_GC_DRY_RUN"), 0) << shown.err;
  EXPECT_NE(shown.err.find("awc\\x0aAWC_GC_DRY_RUN = true # environment.conf "
                           "is ok\n"),
            std::string::npos)
      << shown.err;
}

// The S3 key pair matters only for the S3 store: another store starts (and
// -t passes) with a lone secret, which -t shows redacted.
TEST(ConfigCheckOtherStoreTest, LoneSecretIsFineForAFileStore) {
  EnvList env = {{"DATABASE_URL", "postgresql://awc@db.example/awc"},
                 {"AWC_CAS_URL", "file:///var/lib/awc"},
                 {"AWC_S3_SECRET_ACCESS_KEY", "Lone-Secret-42"}};
  CommandResult check = RunProcess(ShippedDaemonPath(), {"-t"}, env);
  EXPECT_EQ(check.code, 0) << check.err;
  EXPECT_NE(check.out.find("AWC_S3_SECRET_ACCESS_KEY = ********"),
            std::string::npos)
      << check.out;
  EXPECT_EQ(check.out.find("Lone-Secret-42"), std::string::npos);
  EXPECT_EQ(check.err.find("Lone-Secret-42"), std::string::npos);
}

#if AWC_WITH_S3
// What -t accepts for the S3 store, startup gets past the settings with: it
// fails only where the store itself answers (nothing listens there).
TEST(ConfigCheckOtherStoreTest, AcceptedS3SettingsReachTheStore) {
  TestDatabase db;
  int port = FreePort();
  EnvList env = {
      {"DATABASE_URL", db.url()},
      {"AWC_CAS_URL", "s3://awc-bucket"},
      {"AWC_S3_ENDPOINT", "http://127.0.0.1:" + std::to_string(port)},
      {"AWC_S3_ACCESS_KEY_ID", "AKIDOK"},
      {"AWC_S3_SECRET_ACCESS_KEY", "Pair-Secret-42"},
      {"AWC_S3_TIMEOUT_MS", "1000"},
      {"AWC_WORKER_CONCURRENCY", "1"}};
  CommandResult check = RunProcess(ShippedDaemonPath(), {"-t"}, env);
  EXPECT_EQ(check.code, 0) << check.err;
  EXPECT_NE(check.out.find("AWC_S3_ENDPOINT = http://127.0.0.1:"),
            std::string::npos)
      << check.out;
  DaemonProcess::Options o;
  o.binary = ShippedDaemonPath();
  o.env = env;
  DaemonProcess d(o);
  // A refused connection is transient: startup warns and goes on.
  EXPECT_TRUE(d.WaitForEvent("supervisor running")) << d.Stderr();
  EXPECT_EQ(d.Stderr().find("Pair-Secret-42"), std::string::npos);
}
#endif

}  // namespace
}  // namespace awc::testing
