// PgConn against a real PostgreSQL: ExecCached prepares each statement text
// once per connection, and neither a rolled-back transaction nor a failed
// preparation leaves it confused about what is prepared; ExecEachRow hands
// over rows one at a time and leaves the connection usable whatever stops
// it.
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

TEST_F(PgCachedTest, EachRowArrivesAloneAndInOrder) {
  int64_t expected = 1;
  int64_t sum = 0;
  Status s = conn_->ExecEachRow(
      "SELECT i, i * $1::int FROM generate_series(1, 10000) i", {"3"},
      [&](const db::PgResult& row) -> Status {
        EXPECT_EQ(row.rows(), 1);
        EXPECT_EQ(row.GetInt(0, 0), expected++);
        sum += row.GetInt(0, 1);
        return Status::OK();
      });
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(expected, 10001);
  EXPECT_EQ(sum, 3 * 10000 * 10001 / 2);
  // No rows at all is fine too.
  int rows = 0;
  ASSERT_TRUE(conn_
                  ->ExecEachRow("SELECT 1 WHERE false", {},
                                [&](const db::PgResult&) {
                                  ++rows;
                                  return Status::OK();
                                })
                  .ok());
  EXPECT_EQ(rows, 0);
  EXPECT_EQ(Run(kDouble, 7), 14);
}

TEST_F(PgCachedTest, EachRowStopsAtTheFirstErrorEitherSide) {
  // The caller's error: later rows are dropped, the connection is idle.
  int seen = 0;
  Status mine = conn_->ExecEachRow("SELECT i FROM generate_series(1, 1000) i",
                                   {}, [&](const db::PgResult& row) -> Status {
                                     ++seen;
                                     if (row.GetInt(0, 0) == 3)
                                       return Status::Internal("enough");
                                     return Status::OK();
                                   });
  EXPECT_EQ(mine.message(), "enough");
  EXPECT_EQ(seen, 3);
  EXPECT_EQ(Run(kTriple, 2), 6);
  // The server's error after some rows were sent: the error, with its
  // SQLSTATE, and the connection usable.
  Status theirs = conn_->ExecEachRow(
      "SELECT 10 / (5 - i) FROM generate_series(1, 100000) i", {},
      [&](const db::PgResult&) { return Status::OK(); });
  EXPECT_FALSE(theirs.ok());
  EXPECT_NE(theirs.message().find("22012"), std::string::npos)
      << theirs.message();
  EXPECT_EQ(Run(kTriple, 3), 9);
}

// A pipeline right after a row-by-row statement (a scrub that streamed its
// closure and failed before any other statement, then recorded its
// outcome) gets each statement's rows whole: libpq's single-row mode does
// not outlive its statement into the pipeline.
TEST_F(PgCachedTest, APipelineRightAfterRowByRowGetsWholeResults) {
  ASSERT_TRUE(conn_->Prepare("two", "SELECT i FROM generate_series(1, 2) i")
                  .ok());
  ASSERT_TRUE(conn_->Prepare("one", "SELECT $1::int").ok());
  for (int round = 0; round < 2; ++round) {
    SCOPED_TRACE(round);
    Status each = conn_->ExecEachRow("SELECT i FROM generate_series(1, 3) i",
                                     {}, [](const db::PgResult&) {
                                       return Status::OK();
                                     });
    ASSERT_TRUE(each.ok()) << each.message();
    auto ran = conn_->ExecPipeline({{"two", {}}, {"one", {"5"}}});
    ASSERT_TRUE(ran.ok()) << ran.status().message();
    ASSERT_EQ(ran->size(), 2u);
    EXPECT_EQ((*ran)[0].rows(), 2);
    EXPECT_EQ((*ran)[1].GetInt(0, 0), 5);
  }
}

}  // namespace
}  // namespace awc::testing
