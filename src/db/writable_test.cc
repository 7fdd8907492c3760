#include "db/writable.h"

#include <gtest/gtest.h>

namespace awc::db {
namespace {

TEST(WritableTest, TheAnswerSaysWhySessionCannotWrite) {
  EXPECT_TRUE(SessionWritable("f", "off").ok());
  Status standby = SessionWritable("t", "off");
  EXPECT_TRUE(standby.IsTransient());
  EXPECT_EQ(standby.message().rfind("database session is read-only: the "
                                    "server is a standby (in recovery)",
                                    0),
            0u)
      << standby.message();
  Status setting = SessionWritable("f", "on");
  EXPECT_EQ(setting.message(),
            "database session is read-only: default_transaction_read_only "
            "is on for this database, role or server");
  // A standby is the first cause: promoting it is the cure.
  EXPECT_EQ(SessionWritable("t", "on").message(), standby.message());
  EXPECT_EQ(ReadOnlyReason(false, false), "");
}

TEST(WritableTest, ReadOnlySessionsAreToldApartFromOtherErrors) {
  EXPECT_TRUE(IsReadOnlySession(SessionWritable("t", "off")));
  EXPECT_TRUE(IsReadOnlySession(
      Status::Transient("database session is read-only (SQLSTATE 25006): "
                        "cannot execute UPDATE in a read-only transaction")
          .WithContext("claim")));
  EXPECT_FALSE(IsReadOnlySession(
      Status::Transient("database connection failed: connection refused")));
  EXPECT_FALSE(IsReadOnlySession(
      Status::Internal("database session is read-only, said no one")));
  EXPECT_FALSE(IsReadOnlySession(Status::OK()));
}

TEST(WritableTest, SeveralHostsWithoutTargetSessionAttrsGetReadWrite) {
  EXPECT_TRUE(NeedsReadWriteTarget("postgresql://u:pw@h1:5432,h2:5433/db"));
  EXPECT_TRUE(NeedsReadWriteTarget("postgresql://h1,h2/db?sslmode=require"));
  EXPECT_TRUE(NeedsReadWriteTarget("host=h1,h2 port=5432,5433 dbname=db"));
  EXPECT_TRUE(NeedsReadWriteTarget("hostaddr=10.0.0.1,10.0.0.2 dbname=db"));
  // One host: nothing to choose from; the session check tells.
  EXPECT_FALSE(NeedsReadWriteTarget("postgresql://u:pw@h1:5432/db"));
  EXPECT_FALSE(NeedsReadWriteTarget("host=h1 dbname=db"));
  EXPECT_FALSE(NeedsReadWriteTarget(""));
  // The operator's choice is kept.
  EXPECT_FALSE(
      NeedsReadWriteTarget("postgresql://h1,h2/db?target_session_attrs=any"));
  EXPECT_FALSE(NeedsReadWriteTarget(
      "host=h1,h2 dbname=db target_session_attrs=prefer-standby"));
  // Not a connection string: libpq refuses it itself, with its message.
  EXPECT_FALSE(NeedsReadWriteTarget("host=h1,h2 'unterminated"));
}

}  // namespace
}  // namespace awc::db
