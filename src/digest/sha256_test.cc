#include "digest/sha256.h"

#include <gtest/gtest.h>

#include <string>

namespace awc::digest {
namespace {

TEST(Sha256Test, KnownVectors) {
  EXPECT_EQ(Sha256::HexOf(""),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(Sha256::HexOf("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(
      Sha256::HexOf("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
      "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

TEST(Sha256Test, StreamingMatchesOneShot) {
  std::string data;
  for (int i = 0; i < 100000; ++i) data += static_cast<char>(i * 7 + 3);
  Sha256 h;
  size_t off = 0;
  for (size_t step = 1; off < data.size(); step = step * 3 + 1) {
    size_t n = std::min(step, data.size() - off);
    h.Update(data.data() + off, n);
    off += n;
  }
  h.Update(nullptr, 0);
  EXPECT_EQ(h.FinishHex(), Sha256::HexOf(data));
}

TEST(Sha256Test, MillionAs) {
  Sha256 h;
  std::string chunk(1000, 'a');
  for (int i = 0; i < 1000; ++i) h.Update(chunk);
  EXPECT_EQ(h.FinishHex(),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(Sha256Test, BinaryInputWithNul) {
  std::string data("a\0b", 3);
  EXPECT_NE(Sha256::HexOf(data), Sha256::HexOf("a"));
  EXPECT_EQ(Sha256::HexOf(data).size(), 64u);
}

}  // namespace
}  // namespace awc::digest
