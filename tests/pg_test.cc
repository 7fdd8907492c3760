// PgConn against a real PostgreSQL: ExecCached prepares each statement text
// once per connection, and neither a rolled-back transaction nor a failed
// preparation leaves it confused about what is prepared.
#include <gtest/gtest.h>

#include "tests/support/harness.h"

namespace awc::testing {
namespace {

constexpr const char* kDouble = "SELECT $1::int * 2";
constexpr const char* kTriple = "SELECT $1::int * 3";

class PgCachedTest : public ::testing::Test {
 protected:
  PgCachedTest() : conn_(db_.Connect()) {}

  // The statements prepared on conn_ by ExecCached, as "name=text" lines.
  std::string Prepared() {
    auto r = conn_->Exec(
        "SELECT string_agg(name || '=' || statement, ';' ORDER BY name) FROM "
        "pg_prepared_statements WHERE name LIKE 'awc\\_cached\\_%'");
    EXPECT_TRUE(r.ok()) << r.status().message();
    return r.ok() && !r->IsNull(0, 0) ? r->GetString(0, 0) : "";
  }

  int64_t Run(const char* sql, int arg) {
    auto r = conn_->ExecCached(sql, {std::to_string(arg)});
    EXPECT_TRUE(r.ok()) << r.status().message();
    return r.ok() ? r->GetInt(0, 0) : -1;
  }

  TestDatabase db_;
  std::unique_ptr<db::PgConn> conn_;
};

TEST_F(PgCachedTest, EachTextIsPreparedOnceAndRunWithItsParameters) {
  EXPECT_EQ(Prepared(), "");
  EXPECT_EQ(Run(kDouble, 2), 4);
  EXPECT_EQ(Run(kDouble, 5), 10);
  EXPECT_EQ(Run(kTriple, 5), 15);
  EXPECT_EQ(Run(kDouble, 7), 14);
  EXPECT_EQ(Prepared(), std::string("awc_cached_1=") + kDouble +
                            ";awc_cached_2=" + kTriple);
  // Another connection has statements of its own.
  auto other = db_.Connect();
  auto r = other->ExecCached(kTriple, {"1"});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->GetInt(0, 0), 3);
}

TEST_F(PgCachedTest, PreparedInsideARolledBackTransactionStaysUsable) {
  ASSERT_TRUE(conn_->Exec("BEGIN").ok());
  EXPECT_EQ(Run(kDouble, 1), 2);
  ASSERT_TRUE(conn_->Exec("ROLLBACK").ok());
  EXPECT_EQ(Run(kDouble, 3), 6);
  EXPECT_EQ(Prepared(), std::string("awc_cached_1=") + kDouble);
}

TEST_F(PgCachedTest, AFailedPreparationIsTriedAgain) {
  // In an aborted transaction the server refuses to prepare anything.
  ASSERT_TRUE(conn_->Exec("BEGIN").ok());
  EXPECT_FALSE(conn_->Exec("SELECT 1/0").ok());
  auto refused = conn_->ExecCached(kDouble, {"1"});
  EXPECT_FALSE(refused.ok());
  ASSERT_TRUE(conn_->Exec("ROLLBACK").ok());
  EXPECT_EQ(Prepared(), "");
  EXPECT_EQ(Run(kDouble, 4), 8);
  // A statement that does not parse is an error every time, never cached.
  for (int i = 0; i < 2; ++i) {
    auto bad = conn_->ExecCached("SELEC $1", {"1"});
    ASSERT_FALSE(bad.ok());
    EXPECT_NE(bad.status().message().find("syntax error"), std::string::npos)
        << bad.status().message();
  }
  EXPECT_EQ(Prepared(), std::string("awc_cached_1=") + kDouble);
}

}  // namespace
}  // namespace awc::testing
