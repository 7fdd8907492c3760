#if AWC_WITH_S3

#include "store/s3/s3_url.h"

#include <gtest/gtest.h>

namespace awc::store::s3 {
namespace {

const std::string kHex =
    "ab" + std::string(30, '0') + std::string(31, 'f') + "1";

ObjectKey Key(const std::string& tenant = "t1") {
  Result<ObjectKey> key = MakeKey(tenant, "sha256:" + kHex);
  EXPECT_TRUE(key.ok());
  return *key;
}

Endpoint MustParse(std::string_view url) {
  Result<Endpoint> ep = ParseEndpoint(url);
  EXPECT_TRUE(ep.ok()) << url << ": " << ep.status().ToString();
  return ep.ok() ? *ep : Endpoint{};
}

TEST(S3CanonicalQueryTest, SortsAndEncodes) {
  EXPECT_EQ(
      CanonicalQuery({{"prefix", "p/t1/sha256/"},
                      {"list-type", "2"},
                      {"continuation-token", "a+b/c="}}),
      "continuation-token=a%2Bb%2Fc%3D&list-type=2&prefix=p%2Ft1%2Fsha256%2F");
  EXPECT_EQ(CanonicalQuery({{"delete", ""}}), "delete=");
  EXPECT_EQ(CanonicalQuery({}), "");
}

TEST(S3AddressingTest, PathStyle) {
  Addressing a(MustParse("http://127.0.0.1:9000"), "my-bucket", "", true);
  EXPECT_EQ(a.ObjectName(Key()), "t1/sha256/ab/" + kHex);
  EXPECT_EQ(a.ObjectUrl(a.ObjectName(Key())),
            "http://127.0.0.1:9000/my-bucket/t1/sha256/ab/" + kHex);
  EXPECT_EQ(a.BucketUrl(""), "http://127.0.0.1:9000/my-bucket");
  EXPECT_EQ(a.BucketUrl("delete="), "http://127.0.0.1:9000/my-bucket?delete=");
  EXPECT_EQ(a.TenantPrefix("t1"), "t1/sha256/");
  EXPECT_EQ(a.RootName(".awc-store"), ".awc-store");
}

TEST(S3AddressingTest, VirtualHostStyle) {
  Addressing a(MustParse("https://s3.us-east-1.amazonaws.com"), "my-bucket", "",
               false);
  EXPECT_EQ(
      a.ObjectUrl(a.ObjectName(Key())),
      "https://my-bucket.s3.us-east-1.amazonaws.com/t1/sha256/ab/" + kHex);
  EXPECT_EQ(a.BucketUrl(""), "https://my-bucket.s3.us-east-1.amazonaws.com/");
  EXPECT_EQ(a.BucketUrl("list-type=2"),
            "https://my-bucket.s3.us-east-1.amazonaws.com/?list-type=2");
}

TEST(S3AddressingTest, PrefixAndBasePath) {
  Addressing a(MustParse("http://gw:8080/s3"), "b1", "env/prod", true);
  EXPECT_EQ(a.ObjectName(Key("t-2")), "env/prod/t-2/sha256/ab/" + kHex);
  EXPECT_EQ(a.TenantPrefix("t-2"), "env/prod/t-2/sha256/");
  EXPECT_EQ(a.RootName(".awc-store"), "env/prod/.awc-store");
  EXPECT_EQ(a.ObjectUrl(a.ObjectName(Key("t-2"))),
            "http://gw:8080/s3/b1/env/prod/t-2/sha256/ab/" + kHex);
  EXPECT_EQ(a.BucketUrl(""), "http://gw:8080/s3/b1");

  Addressing v(MustParse("http://gw:8080/s3"), "b1", "env", false);
  EXPECT_EQ(v.ObjectUrl(v.ObjectName(Key())),
            "http://b1.gw:8080/s3/env/t1/sha256/ab/" + kHex);
}

TEST(S3AddressingTest, EncodesPrefixBytesInTheUrl) {
  Addressing a(MustParse("http://h"), "b1", "we ird+pre~fix", true);
  EXPECT_EQ(a.ObjectName(Key()), "we ird+pre~fix/t1/sha256/ab/" + kHex);
  EXPECT_EQ(a.ObjectUrl(a.ObjectName(Key())),
            "http://h/b1/we%20ird%2Bpre~fix/t1/sha256/ab/" + kHex);
}

TEST(S3ListedNameTest, AcceptsOnlyWellFormedNames) {
  const std::string prefix = "p/t1/sha256/";
  EXPECT_EQ(DigestFromListedName(prefix, prefix + "ab/" + kHex),
            "sha256:" + kHex);
  EXPECT_FALSE(DigestFromListedName(prefix, "p/t2/sha256/ab/" + kHex));
  EXPECT_FALSE(DigestFromListedName(prefix, prefix + "cd/" + kHex));
  EXPECT_FALSE(DigestFromListedName(prefix, prefix + "ab/" + kHex + "x"));
  EXPECT_FALSE(DigestFromListedName(prefix, prefix + "ab/" + kHex.substr(1)));
  EXPECT_FALSE(DigestFromListedName(prefix, prefix + "AB/AB" + kHex.substr(2)));
  EXPECT_FALSE(DigestFromListedName(prefix, prefix + "ab" + kHex));
  EXPECT_FALSE(DigestFromListedName(prefix, prefix + "ab/" + kHex + ".tmp"));
}

}  // namespace
}  // namespace awc::store::s3

#endif  // AWC_WITH_S3
