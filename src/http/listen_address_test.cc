#include "http/listen_address.h"

#include <gtest/gtest.h>

#include <string>

namespace awc::http {
namespace {

TEST(ParseListenAddressTest, HostPort) {
  Result<ListenAddress> a = ParseListenAddress("127.0.0.1:9187");
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  EXPECT_EQ(a->host, "127.0.0.1");
  EXPECT_EQ(a->port, 9187);
  a = ParseListenAddress("metrics.example:1");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->host, "metrics.example");
  EXPECT_EQ(a->port, 1);
  a = ParseListenAddress("localhost:65535");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->port, 65535);
}

TEST(ParseListenAddressTest, BracketedV6) {
  Result<ListenAddress> a = ParseListenAddress("[::1]:9100");
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  EXPECT_EQ(a->host, "::1");
  EXPECT_EQ(a->port, 9100);
  a = ParseListenAddress("[fe80::1:2]:80");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->host, "fe80::1:2");
  EXPECT_EQ(a->port, 80);
}

TEST(ParseListenAddressTest, PortOnlyMeansAllInterfaces) {
  Result<ListenAddress> a = ParseListenAddress(":9187");
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  EXPECT_EQ(a->host, "");
  EXPECT_EQ(a->port, 9187);
}

TEST(ParseListenAddressTest, Rejects) {
  for (const char* bad :
       {"", "9187", "localhost", "host:", "host:0", "host:65536", "host:-1",
        "host:+80", "host:80x", "host: 80", "[::1]", "[::1]:", "[::1]80",
        "[::1", "[]:80", "::1", "::1:80", "fe80::1:80",
        "host:99999999999999"}) {
    Result<ListenAddress> a = ParseListenAddress(bad);
    EXPECT_FALSE(a.ok()) << "\"" << bad << "\" -> "
                         << (a.ok() ? a->host + " " + std::to_string(a->port)
                                    : "");
    if (!a.ok()) {
      EXPECT_TRUE(a.status().IsInvalidArgument()) << bad;
    }
  }
}

TEST(ParseListenAddressTest, ToStringSpellsItBack) {
  for (const char* text :
       {"127.0.0.1:9187", "[::1]:9100", ":80", "metrics.example:1"}) {
    Result<ListenAddress> a = ParseListenAddress(text);
    ASSERT_TRUE(a.ok()) << text;
    EXPECT_EQ(a->ToString(), text);
  }
}

}  // namespace
}  // namespace awc::http
