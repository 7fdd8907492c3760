#include "cli/target.h"

#include <gtest/gtest.h>
#include <libpq-fe.h>

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

}  // namespace
}  // namespace awc::cli
