#include "store/store_url.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

namespace awc::store {
namespace {

std::string Error(std::string_view url, bool s3_built = true) {
  Result<StoreUrl> r = ParseStoreUrl(url, s3_built);
  return r.ok() ? "" : r.status().message();
}

TEST(StoreUrlTest, Memory) {
  auto r = ParseStoreUrl("memory://");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->scheme, StoreUrl::Scheme::kMemory);
  EXPECT_EQ(Error("memory://x"), "memory:// takes nothing after the scheme");
}

TEST(StoreUrlTest, FileNeedsAnAbsolutePath) {
  auto r = ParseStoreUrl("file:///var/lib/awc//");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->scheme, StoreUrl::Scheme::kFile);
  EXPECT_EQ(r->path, "/var/lib/awc");
  EXPECT_EQ(Error("file://relative"),
            "file:// needs an absolute path, as in "
            "file:///var/lib/awc");
  EXPECT_EQ(Error("file:///x?y"), "file:// URLs take no query or fragment");
}

// One place has one form: repeated slashes and "." segments name the same
// directory. ".." is kept: through a symbolic link it is another place.
TEST(StoreUrlTest, AFilePathHasOneForm) {
  for (auto [in, path] : std::vector<std::pair<std::string, std::string>>{
           {"file:///srv/cas", "/srv/cas"},
           {"file:///srv//cas///", "/srv/cas"},
           {"file:////srv/./cas/.", "/srv/cas"},
           {"file:///./", "/"},
           {"file:///srv/../cas", "/srv/../cas"}}) {
    Result<StoreUrl> url = ParseStoreUrl(in);
    ASSERT_TRUE(url.ok()) << in;
    EXPECT_EQ(url->path, path) << in;
  }
  EXPECT_EQ(*ParseStoreUrl("file:///srv/cas/"),
            *ParseStoreUrl("file:///srv//cas"));
  EXPECT_FALSE(*ParseStoreUrl("file:///srv/cas") ==
               *ParseStoreUrl("file:///srv/cas2"));
}

TEST(StoreUrlTest, S3BucketAndPrefix) {
  auto r = ParseStoreUrl("s3://my-bucket/some/prefix/", /*s3_built=*/true);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->scheme, StoreUrl::Scheme::kS3);
  EXPECT_EQ(r->bucket, "my-bucket");
  EXPECT_EQ(r->prefix, "some/prefix");
  auto bare = ParseStoreUrl("s3://my-bucket", /*s3_built=*/true);
  ASSERT_TRUE(bare.ok());
  EXPECT_EQ(bare->prefix, "");
  EXPECT_NE(Error("s3://Bad_Bucket").find("is not a valid bucket name"),
            std::string::npos);
  EXPECT_NE(Error("s3://my-bucket//x").find("empty path segment"),
            std::string::npos);
  EXPECT_NE(Error("s3://my-bucket?x").find("no query"), std::string::npos);
}

TEST(StoreUrlTest, CredentialsInTheUrlAreRefusedWithoutEchoingThem) {
  std::string e = Error("s3://AKID:sup3rsecret@my-bucket");
  EXPECT_NE(e.find("must not carry credentials"), std::string::npos) << e;
  EXPECT_EQ(e.find("sup3rsecret"), std::string::npos) << e;
}

TEST(StoreUrlTest, S3WithoutTheS3BuildSaysHowToBuildIt) {
  EXPECT_EQ(Error("s3://my-bucket", /*s3_built=*/false),
            "s3:// is not supported by this build; rebuild with "
            "cmake -DAWC_WITH_S3=ON (needs libcurl4-openssl-dev)");
}

TEST(StoreUrlTest, FormatGivesTheCanonicalForm) {
  for (auto [in, out] : std::vector<std::pair<std::string, std::string>>{
           {"memory://", "memory://"},
           {"file:///var/lib/awc//", "file:///var/lib/awc"},
           {"file:///", "file:///"},
           {"s3://my-bucket/some/prefix/", "s3://my-bucket/some/prefix"},
           {"s3://my-bucket", "s3://my-bucket"}}) {
    Result<StoreUrl> url = ParseStoreUrl(in, /*s3_built=*/true);
    ASSERT_TRUE(url.ok()) << in;
    EXPECT_EQ(FormatStoreUrl(*url), out);
    // Its own form parses to the same place.
    Result<StoreUrl> again = ParseStoreUrl(out, /*s3_built=*/true);
    ASSERT_TRUE(again.ok()) << out;
    EXPECT_EQ(FormatStoreUrl(*again), out);
  }
}

TEST(StoreUrlTest, ControlCharactersAreRefusedWithoutEchoingThem) {
  for (std::string url :
       {std::string("file:///tmp/x\ny"), std::string("file:///tmp/\x1b]0;x\a"),
        std::string("s3://my-bucket/pre\tfix"), std::string("memory://\r"),
        std::string("file:///tmp/x\x7f"), std::string("fi\nle:///tmp/x")}) {
    std::string e = Error(url);
    EXPECT_TRUE(e.starts_with("has a control character (0x")) << e;
    for (char c : e) {
      EXPECT_FALSE(static_cast<unsigned char>(c) < 0x20 || c == 0x7f) << e;
    }
  }
  EXPECT_EQ(Error("file:///tmp/x\ny"),
            "has a control character (0x0a at byte 14)");
}

TEST(StoreUrlTest, OtherSchemesAreNamed) {
  EXPECT_EQ(Error("ftp://host/x"),
            "unsupported scheme \"ftp://\" (expected memory://, "
            "file:///absolute/path or s3://bucket[/prefix])");
  EXPECT_EQ(Error("/var/lib/awc"),
            "has no scheme (expected memory://, "
            "file:///absolute/path or s3://bucket[/prefix])");
  EXPECT_EQ(Error(""), "is empty");
  // A scheme that is not plain text is not echoed.
  EXPECT_EQ(Error("x\ny://z").find('\n'), std::string::npos);
}

}  // namespace
}  // namespace awc::store
