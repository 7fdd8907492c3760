// PgConn behind a real PgBouncer in transaction mode with one server
// connection, which every client of the test shares (docs/operations.md,
// "Connection poolers"): in PoolMode::kTransaction the prepared statements,
// the pipeline, the read-only mode and the session settings work and leave
// nothing on the server connection for the next client; in kSession mode
// the pooler's prepared-statement errors name AWC_DATABASE_POOL_MODE. And
// directly against PostgreSQL, kSession still prepares and LISTENs.
#include <gtest/gtest.h>

#include "tests/support/harness.h"
#include "tests/support/pgbouncer.h"

namespace awc::testing {
namespace {

using db::PoolMode;

class PgPoolerTest : public ::testing::Test {
 protected:
  PgPoolerTest() : bouncer_({.pool_mode = "transaction", .pool_size = 1}) {}

  std::unique_ptr<db::PgConn> Connect(PoolMode mode) {
    auto c = db::PgConn::Connect(bouncer_.Url(db_.name()), "awc-test", mode);
    EXPECT_TRUE(c.ok()) << c.status().message() << "\n" << bouncer_.Log();
    return c.ok() ? std::move(*c) : nullptr;
  }

  // One value from `conn`: the first column of the first row.
  static std::string Value(db::PgConn& conn, const std::string& sql) {
    auto r = conn.Exec(sql, {});
    EXPECT_TRUE(r.ok()) << sql << ": " << r.status().message();
    return r.ok() && r->rows() > 0 ? r->GetString(0, 0) : "<error>";
  }

  // What a client that arrives next finds on the one server connection.
  void ExpectNothingLeft() {
    auto next = Connect(PoolMode::kTransaction);
    ASSERT_NE(next, nullptr);
    EXPECT_EQ(Value(*next, "SELECT count(*) FROM pg_prepared_statements"), "0");
    EXPECT_EQ(Value(*next, "SELECT count(*) FROM pg_listening_channels()"),
              "0");
    EXPECT_EQ(Value(*next, "SHOW default_transaction_read_only"), "off");
    EXPECT_EQ(Value(*next, "SHOW lock_timeout"), "0");
    EXPECT_EQ(Value(*next, "SHOW synchronous_commit"), "on");
  }

  TestDatabase db_;
  PgBouncer bouncer_;
};

TEST_F(PgPoolerTest, PreparedStatementsRunUnnamedForClientsSharingAServer) {
  ASSERT_TRUE(bouncer_.ok());
  auto a = Connect(PoolMode::kTransaction);
  auto b = Connect(PoolMode::kTransaction);
  ASSERT_TRUE(a && b);
  EXPECT_FALSE(a->notifications());
  // The same names on both clients, on the one server connection.
  ASSERT_TRUE(a->Prepare("claim", "SELECT $1::int + 1").ok());
  ASSERT_TRUE(b->Prepare("claim", "SELECT $1::int + 2").ok());
  for (int i = 0; i < 3; ++i) {
    auto ra = a->ExecPrepared("claim", {"10"});
    ASSERT_TRUE(ra.ok()) << ra.status().message();
    EXPECT_EQ(ra->GetInt(0, 0), 11);
    auto rb = b->ExecPrepared("claim", {"10"});
    ASSERT_TRUE(rb.ok()) << rb.status().message();
    EXPECT_EQ(rb->GetInt(0, 0), 12);
    auto rc = a->ExecCached("SELECT $1::int * 3", {"5"});
    ASSERT_TRUE(rc.ok()) << rc.status().message();
    EXPECT_EQ(rc->GetInt(0, 0), 15);
  }
  ASSERT_TRUE(a->Listen("LISTEN awc_jobs").ok());
  ExpectNothingLeft();
}

TEST_F(PgPoolerTest, APipelineIsOneTransactionOnOneServerConnection) {
  ASSERT_TRUE(bouncer_.ok());
  auto a = Connect(PoolMode::kTransaction);
  auto b = Connect(PoolMode::kTransaction);
  ASSERT_TRUE(a && b);
  // As JobQueue runs it: the transaction-local setting first, then the
  // statements it is meant for, one Sync.
  ASSERT_TRUE(a->Prepare("async_commit",
                         "SELECT set_config('synchronous_commit', 'off', true)")
                  .ok());
  ASSERT_TRUE(a->Prepare("look",
                         "SELECT current_setting('synchronous_commit'), "
                         "txid_current(), pg_backend_pid()")
                  .ok());
  for (int i = 0; i < 3; ++i) {
    ASSERT_EQ(Value(*b, "SELECT 1"), "1");  // b used the server in between
    auto r =
        a->ExecPipeline({{"async_commit", {}}, {"look", {}}, {"look", {}}});
    ASSERT_TRUE(r.ok()) << r.status().message() << "\n" << bouncer_.Log();
    ASSERT_EQ(r->size(), 3u);
    EXPECT_EQ((*r)[1].GetString(0, 0), "off");
    EXPECT_EQ((*r)[2].GetString(0, 0), "off");
    // One transaction (one txid), on one server process.
    EXPECT_EQ((*r)[1].GetString(0, 1), (*r)[2].GetString(0, 1));
    EXPECT_EQ((*r)[1].GetString(0, 2), (*r)[2].GetString(0, 2));
  }
  // A failing statement undoes the whole pipeline.
  db_.Exec("CREATE TABLE t (v int PRIMARY KEY)");
  ASSERT_TRUE(a->Prepare("put", "INSERT INTO t VALUES ($1::int)").ok());
  auto failed = a->ExecPipeline({{"put", {"1"}}, {"put", {"1"}}});
  EXPECT_FALSE(failed.ok());
  EXPECT_EQ(db_.Int("SELECT count(*) FROM t"), 0);
  ExpectNothingLeft();
}

TEST_F(PgPoolerTest, ReadOnlyAndSettingsHoldForEveryStatementAndStayWithIt) {
  ASSERT_TRUE(bouncer_.ok());
  db_.Exec("CREATE TABLE t (v int)");
  auto ro = Connect(PoolMode::kTransaction);
  ASSERT_NE(ro, nullptr);
  ASSERT_TRUE(ro->SetReadOnly(true).ok());
  ASSERT_TRUE(ro->SetSessionSetting("lock_timeout", "1234ms").ok());
  // Outside a transaction, each statement gets one that carries them.
  EXPECT_EQ(Value(*ro, "SHOW lock_timeout"), "1234ms");
  EXPECT_EQ(Value(*ro, "SHOW transaction_read_only"), "on");
  auto refused = ro->Exec("INSERT INTO t VALUES (1)", {});
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(ro->last_sqlstate(), "25006");  // read_only_sql_transaction
  // Simple-protocol and row-by-row statements too.
  EXPECT_FALSE(ro->Exec("INSERT INTO t VALUES (2)").ok());
  std::string seen;
  Status each = ro->ExecEachRow(
      "SELECT current_setting('lock_timeout') FROM generate_series(1, 2)", {},
      [&](const db::PgResult& row) {
        seen += row.GetString(0, 0) + ";";
        return Status::OK();
      });
  EXPECT_TRUE(each.ok()) << each.message();
  EXPECT_EQ(seen, "1234ms;1234ms;");
  // And a transaction of the caller's.
  Status txn = db::InTransaction(*ro, [&]() -> Status {
    EXPECT_EQ(Value(*ro, "SHOW lock_timeout"), "1234ms");
    return ro->Exec("INSERT INTO t VALUES (3)", {}).status();
  });
  EXPECT_FALSE(txn.ok());
  EXPECT_EQ(db_.Int("SELECT count(*) FROM t"), 0);
  // Back to the server's default: writes again.
  ASSERT_TRUE(ro->SetReadOnly(false).ok());
  EXPECT_TRUE(ro->Exec("INSERT INTO t VALUES (4)", {}).ok());
  EXPECT_EQ(db_.Int("SELECT count(*) FROM t"), 1);
  ExpectNothingLeft();
}

// A client whose pool mode is wrong (left at kSession behind the
// transaction pooler) must not change the sessions of the clients that get
// its server connection next: its read-only mode and settings hold for its
// own statements only.
TEST_F(PgPoolerTest, AMistakenSessionClientLeavesNoSettingsBehind) {
  ASSERT_TRUE(bouncer_.ok());
  db_.Exec("CREATE TABLE t (v int)");
  {
    auto ro = Connect(PoolMode::kSession);
    ASSERT_NE(ro, nullptr);
    ASSERT_TRUE(ro->SetReadOnly(true).ok());
    ASSERT_TRUE(ro->SetSessionSetting("lock_timeout", "1234ms").ok());
    ASSERT_TRUE(ro->SetSessionSetting("statement_timeout", "5s").ok());
    EXPECT_EQ(Value(*ro, "SHOW lock_timeout"), "1234ms");
    EXPECT_EQ(Value(*ro, "SHOW transaction_read_only"), "on");
    EXPECT_FALSE(ro->Exec("INSERT INTO t VALUES (1)", {}).ok());
    EXPECT_EQ(ro->last_sqlstate(), "25006");
    Status txn = db::InTransaction(*ro, [&]() -> Status {
      EXPECT_EQ(Value(*ro, "SHOW statement_timeout"), "5s");
      return Status::OK();
    });
    EXPECT_TRUE(txn.ok()) << txn.message();
  }
  // The one server connection, as the next client finds it: it writes.
  ExpectNothingLeft();
  auto next = Connect(PoolMode::kTransaction);
  ASSERT_NE(next, nullptr);
  EXPECT_TRUE(next->Exec("INSERT INTO t VALUES (2)", {}).ok());
  EXPECT_EQ(Value(*next, "SHOW statement_timeout"), "0");
}

TEST_F(PgPoolerTest, SessionModeBehindTheTransactionPoolerNamesTheSetting) {
  ASSERT_TRUE(bouncer_.ok());
  auto a = Connect(PoolMode::kSession);
  auto b = Connect(PoolMode::kSession);
  ASSERT_TRUE(a && b);
  ASSERT_TRUE(a->Prepare("claim", "SELECT 1").ok());
  // b's session is a's server connection: the name is taken there.
  Status taken = b->Prepare("claim", "SELECT 2");
  ASSERT_FALSE(taken.ok());
  EXPECT_EQ(taken.code(), Status::Code::kFailedPrecondition);
  EXPECT_NE(taken.message().find("SQLSTATE 42P05"), std::string::npos);
  EXPECT_NE(taken.message().find("AWC_DATABASE_POOL_MODE=transaction"),
            std::string::npos)
      << taken.message();
  // b's statement, which never got prepared, "does not exist".
  auto missing = b->ExecPrepared("other", {});
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), Status::Code::kFailedPrecondition);
  EXPECT_NE(missing.status().message().find("SQLSTATE 26000"),
            std::string::npos);
  EXPECT_NE(missing.status().message().find("AWC_DATABASE_POOL_MODE"),
            std::string::npos);
}

TEST(PgDirectTest, SessionModePreparesAndListens) {
  TestDatabase db;
  auto conn = db.Connect();
  ASSERT_NE(conn, nullptr);
  EXPECT_EQ(conn->pool_mode(), PoolMode::kSession);
  EXPECT_TRUE(conn->notifications());
  ASSERT_TRUE(conn->Prepare("claim", "SELECT 1").ok());
  ASSERT_TRUE(conn->Listen("LISTEN awc_jobs").ok());
  ASSERT_TRUE(conn->SetSessionSetting("lock_timeout", "2s").ok());
  // A value that needs quoting reaches the server as it is.
  ASSERT_TRUE(conn->SetSessionSetting("application_name", "it's ok").ok());
  EXPECT_EQ(conn->Exec("SHOW application_name")->GetString(0, 0), "it's ok");
  auto r = conn->Exec(
      "SELECT (SELECT count(*) FROM pg_prepared_statements WHERE name = "
      "'claim'), (SELECT string_agg(c, ',') FROM pg_listening_channels() c), "
      "current_setting('lock_timeout')");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->GetInt(0, 0), 1);
  EXPECT_EQ(r->GetString(0, 1), "awc_jobs");
  EXPECT_EQ(r->GetString(0, 2), "2s");
}

}  // namespace
}  // namespace awc::testing
