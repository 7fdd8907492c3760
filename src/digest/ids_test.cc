#include "digest/ids.h"

#include <gtest/gtest.h>

#include <string>

namespace awc::digest {
namespace {

const std::string kHex64(64, 'a');

TEST(IdsTest, ValidTenantIds) {
  for (const char* id : {"t1", "a", "0", "tenant-1_b", "9_-", "a-"}) {
    EXPECT_TRUE(IsValidTenantId(id)) << id;
  }
  EXPECT_TRUE(IsValidTenantId(std::string(63, 'x')));
}

TEST(IdsTest, InvalidTenantIds) {
  for (const char* id : {"", "-a", "_a", "A", "tenantA", "t/1", "t.1", "..",
                         "t 1", "t\n", "é"}) {
    EXPECT_FALSE(IsValidTenantId(id)) << id;
  }
  EXPECT_FALSE(IsValidTenantId(std::string(64, 'x')));
  EXPECT_FALSE(IsValidTenantId(std::string("t1\0x", 4)));
}

TEST(IdsTest, ValidDigests) {
  EXPECT_TRUE(IsValidDigest("sha256:" + kHex64));
  EXPECT_TRUE(IsValidDigest(
      "sha256:"
      "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"));
}

TEST(IdsTest, InvalidDigests) {
  const std::string bad[] = {
      "",
      "sha256:",
      "sha256:" + kHex64.substr(1),
      "sha256:" + kHex64 + "a",
      "SHA256:" + kHex64,
      "sha1:" + kHex64,
      "sha256;" + kHex64,
      "sha256:" + kHex64.substr(1) + "A",
      "sha256:" + kHex64.substr(1) + "g",
      "sha256:" + kHex64.substr(1) + "/",
      std::string("sha256:") + kHex64.substr(1) + std::string(1, '\0'),
      kHex64,
  };
  for (const std::string& d : bad) EXPECT_FALSE(IsValidDigest(d)) << d;
}

}  // namespace
}  // namespace awc::digest

namespace awc::digest {
namespace {

TEST(RawDigestTest, RoundTripsAndRejectsWhatIsNotADigest) {
  std::string text =
      "sha256:00ff10a0b1c2d3e4f5968778695a4b3c2d1e0f0123456789abcdef0123456789";
  RawDigest raw;
  ASSERT_TRUE(ParseDigest(text, &raw));
  EXPECT_EQ(raw[0], 0x00);
  EXPECT_EQ(raw[1], 0xff);
  EXPECT_EQ(raw[2], 0x10);
  EXPECT_EQ(raw[31], 0x89);
  EXPECT_EQ(FormatDigest(raw), text);
  EXPECT_FALSE(ParseDigest("sha256:00FF", &raw));
  EXPECT_FALSE(ParseDigest(text.substr(0, 70), &raw));
  EXPECT_FALSE(ParseDigest("sha1:" + text.substr(7), &raw));
}

}  // namespace
}  // namespace awc::digest
