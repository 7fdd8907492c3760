#include "common/redact.h"

#include <gtest/gtest.h>

#include <string>

namespace awc {
namespace {

class RedactTest : public ::testing::Test {
 protected:
  void SetUp() override { ClearSecrets(); }
  void TearDown() override { ClearSecrets(); }
};

// --- Scrub -------------------------------------------------------------------

TEST_F(RedactTest, ScrubWithoutSecretsIsIdentity) {
  EXPECT_EQ(Scrub("nothing to hide"), "nothing to hide");
  EXPECT_EQ(Scrub(""), "");
}

TEST_F(RedactTest, ScrubReplacesEveryOccurrence) {
  RegisterSecret("hunter2!");
  EXPECT_EQ(Scrub("pw hunter2! and again hunter2!hunter2!"),
            "pw ******** and again ****************");
  EXPECT_EQ(Scrub("hunter2"), "hunter2");  // a prefix is not the secret
}

TEST_F(RedactTest, ScrubReplacesLongestSecretFirst) {
  // Registered shortest first; the longer one must still be replaced whole,
  // not leave its tail behind after the shorter one matched inside it.
  RegisterSecret("abcd");
  RegisterSecret("abcdefgh");
  EXPECT_EQ(Scrub("x abcdefgh y abcd z"), "x ******** y ******** z");
  EXPECT_EQ(Scrub("abcdefgh").find("efgh"), std::string::npos);
}

TEST_F(RedactTest, ScrubIgnoresShortSecrets) {
  RegisterSecret("");
  RegisterSecret("a");
  RegisterSecret("abc");
  EXPECT_EQ(Scrub("a abc abcabc"), "a abc abcabc");
  RegisterSecret("abcd");  // 4 bytes is enough
  EXPECT_EQ(Scrub("abcd"), "********");
}

TEST_F(RedactTest, RegisteringTwiceIsHarmless) {
  RegisterSecret("s3cretpw");
  RegisterSecret("s3cretpw");
  EXPECT_EQ(Scrub("s3cretpw"), "********");
}

TEST_F(RedactTest, ScrubHandlesSecretsWithBinaryAndRegexCharacters) {
  RegisterSecret(std::string_view("a.*\0b", 5));
  RegisterSecret("p@$$(w0rd)");
  EXPECT_EQ(Scrub(std::string_view("<a.*\0b>", 7)), "<********>");
  EXPECT_EQ(Scrub("a.*xb"), "a.*xb");
  EXPECT_EQ(Scrub("x=p@$$(w0rd)"), "x=********");
}

TEST_F(RedactTest, ClearSecretsForgetsEverything) {
  RegisterSecret("s3cretpw");
  RegisterSecret("anothersecret");
  ClearSecrets();
  EXPECT_EQ(Scrub("s3cretpw anothersecret"), "s3cretpw anothersecret");
}

// --- RedactConnInfo
// -------------------------------------------------------------

TEST_F(RedactTest, UrlPasswordIsReplaced) {
  EXPECT_EQ(RedactConnInfo("postgresql://u:s3cretpw@h:5/db"),
            "postgresql://u:********@h:5/db");
  EXPECT_EQ(RedactConnInfo("postgres://u:s3cretpw@h/db?sslmode=require"),
            "postgres://u:********@h/db?sslmode=require");
  EXPECT_EQ(RedactConnInfo("postgresql://u:s3cretpw@h1:5432,h2:5433/db"),
            "postgresql://u:********@h1:5432,h2:5433/db");
}

TEST_F(RedactTest, UrlWithoutPasswordIsUnchanged) {
  for (const char* url :
       {"postgresql://u@h/db", "postgresql://h:5432/db", "postgresql://",
        "postgresql:///db?host=/run/postgresql", "postgresql://u:@h/db"}) {
    EXPECT_EQ(RedactConnInfo(url), url);
  }
}

TEST_F(RedactTest, UrlQueryPasswordIsReplaced) {
  EXPECT_EQ(RedactConnInfo("postgresql://u@h/db?password=s3cretpw"),
            "postgresql://u@h/db?password=********");
  EXPECT_EQ(
      RedactConnInfo("postgresql://u@h/db?sslmode=disable&password=s3cretpw&"
                     "application_name=x"),
      "postgresql://u@h/db?sslmode=disable&password=********&"
      "application_name=x");
  // Both places at once.
  std::string both =
      RedactConnInfo("postgresql://u:firstpw@h/db?password=secondpw");
  EXPECT_EQ(both.find("firstpw"), std::string::npos) << both;
  EXPECT_EQ(both.find("secondpw"), std::string::npos) << both;
}

TEST_F(RedactTest, UrlPercentEncodedPasswordIsReplaced) {
  EXPECT_EQ(RedactConnInfo("postgresql://u:p%40ss%2Fw%3Ard@h/db"),
            "postgresql://u:********@h/db");
  std::string q = RedactConnInfo("postgresql://h/db?password=p%26ss%3Dw");
  EXPECT_EQ(q, "postgresql://h/db?password=********");
}

TEST_F(RedactTest, UrlPasswordWithQuestionMarkIsReplaced) {
  // libpq takes everything up to the '@' before the first '/' as user info,
  // so a '?' in the password does not start the query.
  ASSERT_EQ(ConnInfoPassword("postgresql://u:pa?ss99@h/db"), "pa?ss99");
  std::string out = RedactConnInfo("postgresql://u:pa?ss99@h/db");
  EXPECT_EQ(out.find("ss99"), std::string::npos) << out;
  EXPECT_EQ(out, "postgresql://u:********@h/db");
}

TEST_F(RedactTest, UrlUnencodedSlashOrAtInPasswordIsReplaced) {
  // Base64 keys hold '/' and '+'; operators paste them unencoded. libpq
  // then misreads the URL, but the text must still not be shown.
  std::string out =
      RedactConnInfo("postgresql://u:wJalr/K7MD+ENG@h:5432/db?sslmode=require");
  EXPECT_EQ(out, "postgresql://u:********@h:5432/db?sslmode=require");
  out = RedactConnInfo("postgresql://u:p@ss99@h/db");
  EXPECT_EQ(out.find("ss99"), std::string::npos) << out;
}

TEST_F(RedactTest, UrlAtSignInTheQueryIsKept) {
  EXPECT_EQ(RedactConnInfo("postgresql://u:pw99@h?application_name=a@b"),
            "postgresql://u:********@h?application_name=a@b");
  EXPECT_EQ(RedactConnInfo("postgresql://u@h/db?application_name=a@b"),
            "postgresql://u@h/db?application_name=a@b");
}

TEST_F(RedactTest, UrlQueryPasswordAfterAnAtSign) {
  EXPECT_EQ(
      RedactConnInfo("postgresql://h/db?application_name=a@b&password=pw99"),
      "postgresql://h/db?application_name=a@b&password=********");
}

// Found by fuzz/conninfo_fuzz.cc: with no user info, an '@' in the query
// made the user-info rule swallow the query's start, and the password
// parameter after it was shown.
TEST_F(RedactTest, UrlQueryPasswordAfterAnAtSignWithoutHostOrUser) {
  const std::string url = "postgres://:/?user=@&password=s5cost";
  ASSERT_EQ(ConnInfoPassword(url), "s5cost");
  std::string out = RedactConnInfo(url);
  EXPECT_EQ(out.find("s5cost"), std::string::npos) << out;
  EXPECT_EQ(ConnInfoPassword(out).find("s5cost"), std::string::npos) << out;
}

TEST_F(RedactTest, UrlEmptyQueryPasswordIsKept) {
  EXPECT_EQ(RedactConnInfo("postgresql://h/db?password="),
            "postgresql://h/db?password=");
}

TEST_F(RedactTest, UrlPercentEncodedQueryKeyIsReplaced) {
  // libpq decodes query keys too: pass%77ord is password.
  ASSERT_EQ(ConnInfoPassword("postgresql://h/db?pass%77ord=s3cretpw"),
            "s3cretpw");
  std::string out = RedactConnInfo("postgresql://h/db?pass%77ord=s3cretpw");
  EXPECT_EQ(out.find("s3cretpw"), std::string::npos) << out;
}

TEST_F(RedactTest, SslPasswordIsASecretToo) {
  std::string out =
      RedactConnInfo("postgresql://u@h/db?sslpassword=keypassphrase");
  EXPECT_EQ(out.find("keypassphrase"), std::string::npos) << out;
  out = RedactConnInfo("host=h sslpassword=keypassphrase");
  EXPECT_EQ(out.find("keypassphrase"), std::string::npos) << out;
}

TEST_F(RedactTest, KeyValuePasswordIsReplaced) {
  std::string out = RedactConnInfo("host=h password=s3cretpw dbname=d");
  EXPECT_EQ(out.find("s3cretpw"), std::string::npos) << out;
  EXPECT_NE(out.find("password=********"), std::string::npos) << out;
  EXPECT_NE(out.find("host=h"), std::string::npos) << out;
  EXPECT_NE(out.find("dbname=d"), std::string::npos) << out;
}

TEST_F(RedactTest, KeyValueQuotedPasswordWithSpaces) {
  std::string out = RedactConnInfo(
      "host=h password='s3cret pw with \\'quote' user=bob dbname=d");
  EXPECT_EQ(out.find("s3cret"), std::string::npos) << out;
  EXPECT_EQ(out.find("quote"), std::string::npos) << out;
  EXPECT_NE(out.find("password=********"), std::string::npos) << out;
  EXPECT_NE(out.find("user=bob"), std::string::npos) << out;
  // The result is itself a valid connection string with the same target.
  EXPECT_EQ(ConnInfoPassword(out), std::string(kRedacted));
}

TEST_F(RedactTest, KeyValueOtherValuesAreRequoted) {
  std::string out =
      RedactConnInfo("host=h application_name='my app' options='-c x=\\'y\\''");
  EXPECT_NE(out.find("application_name='my app'"), std::string::npos) << out;
  EXPECT_NE(out.find("options='-c x=\\'y\\''"), std::string::npos) << out;
}

TEST_F(RedactTest, KeyValueWithoutPassword) {
  std::string out = RedactConnInfo("host=h dbname=d");
  EXPECT_EQ(out.find("password"), std::string::npos) << out;
  EXPECT_NE(out.find("host=h"), std::string::npos) << out;
}

TEST_F(RedactTest, UnparseableIsNotShown) {
  for (const char* bad :
       {"host=h password='s3cretpw", "s3cretpw", "host=h bogus=s3cretpw",
        "postgresql://u:s3cretpw@h/db?bogus=1"}) {
    EXPECT_EQ(RedactConnInfo(bad), "(unparseable connection string)") << bad;
  }
}

TEST_F(RedactTest, RedactConnInfoDoesNotRegisterSecrets) {
  RedactConnInfo("postgresql://u:s3cretpw@h/db");
  EXPECT_EQ(Scrub("s3cretpw"), "s3cretpw");
}

// --- ConnInfoPassword
// ------------------------------------------------------------

TEST_F(RedactTest, ConnInfoPasswordReadsEveryForm) {
  EXPECT_EQ(ConnInfoPassword("postgresql://u:s3cretpw@h:5/db"), "s3cretpw");
  EXPECT_EQ(ConnInfoPassword("postgresql://u:p%40ss%20w@h/db"), "p@ss w");
  EXPECT_EQ(ConnInfoPassword("postgresql://u@h/db?password=q%26pw"), "q&pw");
  EXPECT_EQ(ConnInfoPassword("host=h password=s3cretpw dbname=d"), "s3cretpw");
  EXPECT_EQ(ConnInfoPassword("host=h password='s3cret pw' dbname=d"),
            "s3cret pw");
}

TEST_F(RedactTest, ConnInfoPasswordEmptyWhenAbsentOrUnparseable) {
  EXPECT_EQ(ConnInfoPassword("postgresql://u@h/db"), "");
  EXPECT_EQ(ConnInfoPassword("host=h dbname=d"), "");
  EXPECT_EQ(ConnInfoPassword(""), "");
  EXPECT_EQ(ConnInfoPassword("host=h password='unterminated"), "");
}

}  // namespace
}  // namespace awc
