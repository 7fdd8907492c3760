// The parts of the libpq wrapper that need no server: how libpq's messages
// become the one line of a Status, array literals (db/pg_text.cc) and
// NumberOrNull (db/pg.h; tests/db/pg_test.cc has the rest).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "db/pg.h"

namespace awc::db {
namespace {

TEST(NumberOrNullTest, ANumberIsItsTextAndNoneIsNull) {
  EXPECT_EQ(NumberOrNull(std::optional<int>(7)), Param("7"));
  EXPECT_EQ(NumberOrNull(std::optional<int64_t>(-9000000000)),
            Param("-9000000000"));
  EXPECT_EQ(NumberOrNull(std::optional<int>()), std::nullopt);
}

// libpq ends a message's line with a newline and indents its hint with a
// tab: the hint reads as a clause of its own, not as the same sentence.
TEST(CleanMessageTest, AHintLineIsJoinedAsAClause) {
  EXPECT_EQ(CleanMessage("connection to server at \"127.0.0.1\", port 1 "
                         "failed: Connection refused\n\tIs the server running "
                         "on that host and accepting TCP/IP connections?\n"),
            "connection to server at \"127.0.0.1\", port 1 failed: Connection "
            "refused; Is the server running on that host and accepting "
            "TCP/IP connections?");
  EXPECT_EQ(CleanMessage("connection to server on socket "
                         "\"/run/postgresql/.s.PGSQL.5432\" failed: No such "
                         "file or directory\n\tIs the server running locally "
                         "and accepting connections on that socket?\n"),
            "connection to server on socket \"/run/postgresql/.s.PGSQL.5432\" "
            "failed: No such file or directory; Is the server running "
            "locally and accepting connections on that socket?");
}

// A sentence libpq wrapped onto a second line stays one sentence; after a
// line that ends a sentence, the next follows with a space.
TEST(CleanMessageTest, AWrappedSentenceAndTheNextSentenceReadOn) {
  EXPECT_EQ(CleanMessage("server closed the connection unexpectedly\n\tThis "
                         "probably means the server terminated abnormally\n"
                         "\tbefore or while processing the request.\n"),
            "server closed the connection unexpectedly; This probably means "
            "the server terminated abnormally before or while processing the "
            "request.");
  EXPECT_EQ(CleanMessage("connection to server at \"::1\", port 1 failed: "
                         "Connection refused\n\tIs the server running on that "
                         "host and accepting TCP/IP connections?\nconnection "
                         "to server at \"127.0.0.1\", port 1 failed: "
                         "Connection refused\n\tIs the server running on that "
                         "host and accepting TCP/IP connections?\n"),
            "connection to server at \"::1\", port 1 failed: Connection "
            "refused; Is the server running on that host and accepting "
            "TCP/IP connections? connection to server at \"127.0.0.1\", port "
            "1 failed: Connection refused; Is the server running on that host "
            "and accepting TCP/IP connections?");
}

// A server error's DETAIL, HINT and LINE lines are clauses too; blanks
// inside a line become one space.
TEST(CleanMessageTest, AServerErrorsLinesAreClauses) {
  EXPECT_EQ(CleanMessage("ERROR:  duplicate key value violates unique "
                         "constraint \"t_pkey\"\nDETAIL:  Key (id)=(1) "
                         "already exists.\n"),
            "ERROR: duplicate key value violates unique constraint "
            "\"t_pkey\"; DETAIL: Key (id)=(1) already exists.");
  EXPECT_EQ(CleanMessage("ERROR:  relation \"x\" does not exist\nLINE 1: "
                         "SELECT * FROM x\n                      ^\n"),
            "ERROR: relation \"x\" does not exist; LINE 1: SELECT * FROM x; ^");
}

// Whatever a message quotes, it is one line of text: other control
// characters are blanks too.
TEST(CleanMessageTest, TheResultIsOneLineOfText) {
  EXPECT_EQ(CleanMessage("ERROR:  bad value \"\x1b]0;x\x07\"\r\n"),
            "ERROR: bad value \" ]0;x \"");
  EXPECT_EQ(CleanMessage(""), "");
  EXPECT_EQ(CleanMessage(nullptr), "");
  EXPECT_EQ(CleanMessage("\n\t \n"), "");
  EXPECT_EQ(CleanMessage("one line"), "one line");
}

// Array parameters: each element quoted, quotes and backslashes escaped,
// so that no value can end the literal early.
TEST(ArrayLiteralTest, ElementsAreQuotedAndEscaped) {
  EXPECT_EQ(ArrayLiteral(std::vector<std::string>{}), "{}");
  EXPECT_EQ(ArrayLiteral(std::vector<std::string>{"a", "b,c", "d\"e", "f\\"}),
            "{\"a\",\"b,c\",\"d\\\"e\",\"f\\\\\"}");
  EXPECT_EQ(ArrayLiteral(std::vector<uint64_t>{1, 20}), "{\"1\",\"20\"}");
  EXPECT_EQ(ArrayLiteral(std::vector<bool>{true, false}), "{t,f}");
}

}  // namespace
}  // namespace awc::db
