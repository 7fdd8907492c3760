// Sessions that cannot write, against PostgreSQL (db/writable.h): the
// check right after connecting, a write refused later (SQLSTATE 25006),
// which breaks the connection for its owner unless it was made read-only
// on purpose, and target_session_attrs=read-write added to a multi-host
// connection string.
#include "db/writable.h"

#include <gtest/gtest.h>

#include <cstdlib>

#include "tests/support/harness.h"

namespace awc::testing {
namespace {

class WritableTest : public ::testing::Test {
 protected:
  TestDatabase db_;
};

TEST_F(WritableTest, ASessionThatCannotWriteIsFoundRightAfterConnecting) {
  auto writable = db_.Connect();
  EXPECT_TRUE(db::RequireWritable(*writable).ok());
  db_.SetReadOnlyForNewSessions(true);
  auto read_only = db_.Connect();
  Status s = db::RequireWritable(*read_only);
  EXPECT_TRUE(db::IsReadOnlySession(s)) << s.ToString();
  EXPECT_NE(s.message().find("default_transaction_read_only is on"),
            std::string::npos)
      << s.message();
  // A connection made read-only on purpose still reads the server's
  // default, not its own READ ONLY transactions.
  ASSERT_TRUE(writable->SetReadOnly(true).ok());
  EXPECT_TRUE(db::RequireWritable(*writable).ok());
}

TEST_F(WritableTest, AWriteRefusedAsReadOnlyBreaksTheConnection) {
  db_.Exec("CREATE TABLE t (x int)");
  auto conn = db_.Connect();
  ASSERT_TRUE(conn->Exec("SET default_transaction_read_only = on").ok());
  Result<db::PgResult> r = conn->Exec("INSERT INTO t VALUES (1)");
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(db::IsReadOnlySession(r.status())) << r.status().ToString();
  EXPECT_EQ(r.status().message().rfind(
                "database session is read-only (SQLSTATE 25006): ", 0),
            0u)
      << r.status().message();
  EXPECT_EQ(conn->last_sqlstate(), "25006");
  EXPECT_TRUE(conn->IsBroken())
      << "its owner keeps a session that cannot write";

  // The same refusal inside a transaction this connection asked to be
  // READ ONLY is the caller's, not the server's: nothing breaks.
  auto reader = db_.Connect();
  ASSERT_TRUE(reader->SetReadOnly(true).ok());
  Result<db::PgResult> refused = reader->Exec("INSERT INTO t VALUES (1)");
  ASSERT_FALSE(refused.ok());
  EXPECT_FALSE(db::IsReadOnlySession(refused.status()));
  EXPECT_FALSE(reader->IsBroken());
  EXPECT_TRUE(reader->Exec("SELECT 1").ok());
}

TEST_F(WritableTest, AMultiHostUrlLooksForAServerThatTakesWrites) {
  // Both hosts are the test cluster, whose sessions of this database are
  // read-only: libpq, asked for read-write, refuses both.
  db_.SetReadOnlyForNewSessions(true);
  std::string hosts = MultiHostUrl(db_.name(), {ClusterPort(), ClusterPort()});
  Result<std::unique_ptr<db::PgConn>> refused =
      db::PgConn::Connect(hosts, "awc-test");
  EXPECT_FALSE(refused.ok());
  // The operator's own choice is kept.
  Result<std::unique_ptr<db::PgConn>> any =
      db::PgConn::Connect(hosts + "?target_session_attrs=any", "awc-test");
  ASSERT_TRUE(any.ok()) << any.status().ToString();
  EXPECT_TRUE(db::IsReadOnlySession(db::RequireWritable(**any)));
  // Writable again: found.
  db_.SetReadOnlyForNewSessions(false);
  Result<std::unique_ptr<db::PgConn>> found =
      db::PgConn::Connect(hosts, "awc-test");
  ASSERT_TRUE(found.ok()) << found.status().ToString();
  EXPECT_TRUE(db::RequireWritable(**found).ok());
}

}  // namespace
}  // namespace awc::testing
