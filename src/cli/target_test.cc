#include "cli/target.h"

#include <gtest/gtest.h>
#include <libpq-fe.h>

#include <cstdlib>

namespace awc::cli {
namespace {

TEST(TargetUrlTest, Parts) {
  EXPECT_EQ(TargetUrl({"awc", "db.example", "5432", "awc"}),
            "postgresql://awc@db.example:5432/awc");
  EXPECT_EQ(TargetUrl({"awc", "/var/run/postgresql", "5432", "awc"}),
            "postgresql://awc@%2Fvar%2Frun%2Fpostgresql:5432/awc");
  EXPECT_EQ(TargetUrl({"awc", "::1", "5432", "awc"}),
            "postgresql://awc@[::1]:5432/awc");
  EXPECT_EQ(TargetUrl({"a b@c:d", "h", "", "my db/x"}),
            "postgresql://a%20b%40c%3Ad@h/my%20db%2Fx");
  EXPECT_EQ(TargetUrl({"", "h", "1", "d"}), "postgresql://h:1/d");
}

TEST(TargetUrlTest, LibpqReadsTheTargetBack) {
  std::string url = TargetUrl({"a b@c:d", "/tmp/sock dir", "6543", "my db"});
  char* err = nullptr;
  PQconninfoOption* opts = PQconninfoParse(url.c_str(), &err);
  ASSERT_NE(opts, nullptr) << (err ? err : "");
  std::string user, host, port, dbname;
  for (PQconninfoOption* o = opts; o->keyword != nullptr; ++o) {
    if (o->val == nullptr) continue;
    std::string k = o->keyword;
    if (k == "user") user = o->val;
    if (k == "host") host = o->val;
    if (k == "port") port = o->val;
    if (k == "dbname") dbname = o->val;
  }
  PQconninfoFree(opts);
  EXPECT_EQ(user, "a b@c:d");
  EXPECT_EQ(host, "/tmp/sock dir");
  EXPECT_EQ(port, "6543");
  EXPECT_EQ(dbname, "my db");
}

// Resolved before connecting, from what the string says; never the
// password, whichever form it takes.
TEST(TargetOfConninfoTest, ResolvesWhatTheStringSaysWithoutThePassword) {
  EXPECT_EQ(TargetUrl(TargetOfConninfo(
                "postgresql://awc:SECRETPW@db.example:6432/awc?sslmode=off")),
            "postgresql://awc@db.example:6432/awc");
  EXPECT_EQ(TargetUrl(TargetOfConninfo("host=/run/pg port=5433 user=u "
                                       "password=SECRETPW dbname=d")),
            "postgresql://u@%2Frun%2Fpg:5433/d");
  EXPECT_EQ(TargetUrl(TargetOfConninfo(
                "postgresql://u@a.example:5432,b.example:5433/d")),
            "postgresql://u@a.example:5432,b.example:5433/d");
  EXPECT_EQ(TargetUrl(TargetOfConninfo("host=a,b port=7 user=u dbname=d")),
            "postgresql://u@a:7,b:7/d");
  // No database named: PGDATABASE, else libpq's default, the user's name.
  const char* pgdatabase = getenv("PGDATABASE");
  EXPECT_EQ(TargetOfConninfo("host=h port=1 user=someone").dbname,
            pgdatabase != nullptr && *pgdatabase ? pgdatabase : "someone");
  // Nothing libpq can parse: no parts, and nothing of the string.
  TargetParts bad = TargetOfConninfo("postgresql://u:SECRETPW@[::1/d");
  EXPECT_EQ(TargetUrl(bad).find("SECRETPW"), std::string::npos);
}

}  // namespace
}  // namespace awc::cli
