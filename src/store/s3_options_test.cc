#include "store/s3_options.h"

#include <gtest/gtest.h>

#include <string>

namespace awc::store::s3 {
namespace {

Endpoint MustParse(std::string_view url) {
  Result<Endpoint> ep = ParseEndpoint(url);
  EXPECT_TRUE(ep.ok()) << url << ": " << ep.status().ToString();
  return ep.ok() ? *ep : Endpoint{};
}

TEST(S3EndpointTest, ParsesSchemeHostPortAndPath) {
  Endpoint ep = MustParse("http://127.0.0.1:9000");
  EXPECT_EQ(ep.scheme, "http");
  EXPECT_EQ(ep.authority, "127.0.0.1:9000");
  EXPECT_EQ(ep.base_path, "");

  ep = MustParse("HTTPS://s3.eu-west-1.amazonaws.com/");
  EXPECT_EQ(ep.scheme, "https");
  EXPECT_EQ(ep.authority, "s3.eu-west-1.amazonaws.com");
  EXPECT_EQ(ep.base_path, "");

  ep = MustParse("http://[::1]:9000/storage/s3//");
  EXPECT_EQ(ep.authority, "[::1]:9000");
  EXPECT_EQ(ep.base_path, "/storage/s3");
}

TEST(S3EndpointTest, RefusesCredentialsAndOddForms) {
  for (const char* bad :
       {"s3.amazonaws.com", "ftp://host", "http://", "http:///path",
        "http://key:secret@host", "http://host?x=1", "http://host#f",
        "http://ho st", "http://host/a b"}) {
    Result<Endpoint> ep = ParseEndpoint(bad);
    EXPECT_TRUE(ep.status().IsInvalidArgument()) << bad;
    EXPECT_EQ(ep.status().message().find("secret"), std::string::npos) << bad;
  }
}

TEST(S3EndpointTest, ErrorsSayWhatIsWrong) {
  EXPECT_EQ(ParseEndpoint("notaurl").status().message(),
            "expected http://host[:port] or https://host[:port]");
  EXPECT_EQ(ParseEndpoint("ftp://host").status().message(),
            "the scheme must be http or https");
  EXPECT_EQ(ParseEndpoint("https://AKID:pw@host").status().message(),
            "must not carry credentials; use AWC_S3_ACCESS_KEY_ID and "
            "AWC_S3_SECRET_ACCESS_KEY");
}

TEST(S3RegionTest, LowercaseLettersDigitsAndDashes) {
  EXPECT_TRUE(IsValidRegion("us-east-1"));
  EXPECT_TRUE(IsValidRegion("garage"));
  EXPECT_TRUE(IsValidRegion(std::string(64, 'a')));
  for (const char* bad : {"", "US-EAST-1", "us:east", "us east", "eu_west"}) {
    EXPECT_FALSE(IsValidRegion(bad)) << bad;
  }
  EXPECT_FALSE(IsValidRegion(std::string(65, 'a')));
}

}  // namespace
}  // namespace awc::store::s3
