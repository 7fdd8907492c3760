#include "cas/manifest.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <string>

namespace awc::cas {
namespace {

using Kind = ManifestEntry::Kind;

const std::string kDigestA = "sha256:" + std::string(64, 'a');
const std::string kDigestB = "sha256:" + std::string(64, 'b');

std::string Entry(const std::string& name, const std::string& kind = "\"blob\"",
                  const std::string& digest = "\"" + kDigestA + "\"",
                  const std::string& size = "1") {
  return "{\"name\":" + name + ",\"kind\":" + kind + ",\"digest\":" + digest +
         ",\"size\":" + size + "}";
}

std::string Doc(const std::string& entries) {
  return "{\"format\":\"awc-manifest/1\",\"entries\":[" + entries + "]}";
}

// The error message for `text`, which must be rejected as kCorruption.
std::string Rejection(const std::string& text) {
  Result<Manifest> r = ParseManifest(text);
  if (r.ok()) return "<accepted>";
  EXPECT_TRUE(r.status().IsCorruption()) << r.status().ToString();
  return r.status().message();
}

#define EXPECT_REJECTED(text, what)                                            \
  do {                                                                         \
    std::string msg_ = Rejection(text);                                        \
    EXPECT_NE(msg_.find(what), std::string::npos) << (text) << " -> " << msg_; \
  } while (0)

TEST(ManifestTest, CanonicalBytes) {
  Manifest m;
  m.entries.push_back({"README", Kind::kBlob, kDigestA, 12});
  m.entries.push_back({"src", Kind::kManifest, kDigestB, 311});
  EXPECT_EQ(SerializeManifest(m),
            "{\"format\":\"awc-manifest/1\",\"entries\":["
            "{\"name\":\"README\",\"kind\":\"blob\",\"digest\":\"" +
                kDigestA +
                "\",\"size\":12},"
                "{\"name\":\"src\",\"kind\":\"manifest\",\"digest\":\"" +
                kDigestB + "\",\"size\":311}]}");
  EXPECT_EQ(SerializeManifest(Manifest{}),
            "{\"format\":\"awc-manifest/1\",\"entries\":[]}");
}

TEST(ManifestTest, CanonicalEscaping) {
  Manifest m;
  m.entries.push_back(
      {"a\"b\\c\b\f\n\r\t\x01\x1f\x7f \xc3\xa9", Kind::kBlob, kDigestA, 0});
  EXPECT_EQ(SerializeManifest(m),
            Doc(Entry("\"a\\\"b\\\\c\\b\\f\\n\\r\\t\\u0001\\u001f\x7f "
                      "\xc3\xa9\"",
                      "\"blob\"", "\"" + kDigestA + "\"", "0")));
}

TEST(ManifestTest, RoundTrips) {
  Manifest empty;
  Manifest m;
  m.entries.push_back({"\x01", Kind::kBlob, kDigestA, 0});
  m.entries.push_back({"A\"q\\", Kind::kManifest, kDigestB, 1});
  m.entries.push_back({"README", Kind::kBlob, kDigestA, INT64_MAX});
  m.entries.push_back({"a b\tc", Kind::kBlob, kDigestB, 42});
  m.entries.push_back({"\xc3\xa9t\xc3\xa9", Kind::kManifest, kDigestA, 7});
  m.entries.push_back({"\xf0\x9f\x98\x80", Kind::kBlob, kDigestA, 8});
  Manifest big;
  for (int i = 0; i < 5000; ++i) {
    char name[16];
    std::snprintf(name, sizeof(name), "f%06d", i);
    big.entries.push_back({name, i % 3 ? Kind::kBlob : Kind::kManifest,
                           i % 2 ? kDigestA : kDigestB,
                           static_cast<uint64_t>(i) * 1000});
  }
  for (const Manifest* want : {&empty, &m, &big}) {
    std::string bytes = SerializeManifest(*want);
    Result<Manifest> got = ParseManifest(bytes);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    EXPECT_EQ(*got, *want);
    EXPECT_EQ(SerializeManifest(*got), bytes);
  }
}

TEST(ManifestTest, AcceptsNonCanonicalLayout) {
  std::string text = " {\n \"entries\" : [ {\"size\": 5, \"digest\": \"" +
                     kDigestA +
                     "\", \"kind\": \"manifest\", \"name\": \"d\\u00e9\"} ],\n"
                     " \"format\" : \"awc-manifest/1\" }\n";
  Result<Manifest> r = ParseManifest(text);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->entries.size(), 1u);
  EXPECT_EQ(r->entries[0],
            (ManifestEntry{"d\xc3\xa9", Kind::kManifest, kDigestA, 5}));
}

TEST(ManifestTest, SortsByBytes) {
  // 'B' (0x42) < 'a' (0x61) < 'z' < 0xc3 ('é' in UTF-8); "a" < "ab".
  Result<Manifest> r = ParseManifest(
      Doc(Entry("\"B\"") + "," + Entry("\"a\"") + "," + Entry("\"ab\"") + "," +
          Entry("\"z\"") + "," + Entry("\"\xc3\xa9\"")));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->entries.size(), 5u);
}

TEST(ManifestTest, SizeLimits) {
  Result<Manifest> r = ParseManifest(Doc(Entry(
      "\"a\"", "\"blob\"", "\"" + kDigestA + "\"", "9223372036854775807")));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->entries[0].size, uint64_t{INT64_MAX});
  EXPECT_REJECTED(Doc(Entry("\"a\"", "\"blob\"", "\"" + kDigestA + "\"",
                            "9223372036854775808")),
                  "number out of range");
  r = ParseManifest(
      Doc(Entry("\"a\"", "\"blob\"", "\"" + kDigestA + "\"", "0")));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
}

TEST(ManifestTest, RejectsBadJson) {
  EXPECT_REJECTED("", "not valid JSON");
  EXPECT_REJECTED("{", "not valid JSON");
  EXPECT_REJECTED(Doc("") + "x", "not valid JSON");
  EXPECT_REJECTED(Doc("") + Doc(""), "not valid JSON");
  EXPECT_REJECTED("{'format':1}", "not valid JSON");
  EXPECT_REJECTED(Doc(Entry("\"a\xff\"")), "invalid UTF-8");
  EXPECT_REJECTED(Doc(Entry("\"\xc3\"")), "invalid UTF-8");
  EXPECT_REJECTED(Doc(Entry("\"\xed\xa0\x80\"")), "invalid UTF-8");
  EXPECT_REJECTED(Doc(Entry("\"\\ud800\"")), "not valid JSON");
  std::string with_nul = Doc("");
  with_nul.insert(1, 1, '\0');
  EXPECT_REJECTED(with_nul, "not valid JSON");
}

TEST(ManifestTest, RejectsWrongTopLevel) {
  EXPECT_REJECTED("[]", "not a JSON object");
  EXPECT_REJECTED("\"awc-manifest/1\"", "not a JSON object");
  EXPECT_REJECTED("null", "not a JSON object");
  EXPECT_REJECTED("12", "not a JSON object");
  EXPECT_REJECTED("{}", "keys are not exactly");
  EXPECT_REJECTED("{\"format\":\"awc-manifest/1\"}", "keys are not exactly");
  EXPECT_REJECTED("{\"entries\":[]}", "keys are not exactly");
  EXPECT_REJECTED(
      "{\"format\":\"awc-manifest/1\",\"entries\":[],\"comment\":\"\"}",
      "keys are not exactly");
  EXPECT_REJECTED(
      "{\"format\":\"awc-manifest/1\",\"entries\":[],\"entries\":[]}",
      "duplicate key");
  EXPECT_REJECTED(
      "{\"format\":\"awc-manifest/1\",\"format\":\"awc-manifest/1\","
      "\"entries\":[]}",
      "duplicate key");
}

TEST(ManifestTest, RejectsUnknownFormat) {
  for (const char* format :
       {"\"awc-manifest/2\"", "\"awc-manifest/1 \"", "\"AWC-MANIFEST/1\"",
        "\"\"", "1", "null", "[\"awc-manifest/1\"]",
        "\"awc-manifest/1\\u0000\""}) {
    EXPECT_REJECTED(std::string("{\"format\":") + format + ",\"entries\":[]}",
                    "unknown format");
  }
}

TEST(ManifestTest, RejectsEntriesNotAnArray) {
  for (const char* entries : {"{}", "null", "\"\"", "3"}) {
    EXPECT_REJECTED(std::string("{\"format\":\"awc-manifest/1\",\"entries\":") +
                        entries + "}",
                    "entries is not an array");
  }
}

TEST(ManifestTest, RejectsBadEntryShape) {
  EXPECT_REJECTED(Doc("1"), "entry 0: not a JSON object");
  EXPECT_REJECTED(Doc(Entry("\"a\"") + ",[]"), "entry 1: not a JSON object");
  EXPECT_REJECTED(Doc("{}"), "entry 0: keys are not exactly");
  EXPECT_REJECTED(
      Doc("{\"name\":\"a\",\"kind\":\"blob\",\"digest\":\"" + kDigestA + "\"}"),
      "entry 0: keys are not exactly");
  EXPECT_REJECTED(Doc("{\"name\":\"a\",\"kind\":\"blob\",\"digest\":\"" +
                      kDigestA + "\",\"size\":1,\"mode\":420}"),
                  "entry 0: keys are not exactly");
  EXPECT_REJECTED(Doc("{\"name\":\"a\",\"kind\":\"blob\",\"digest\":\"" +
                      kDigestA + "\",\"size\":1,\"size\":1}"),
                  "duplicate key");
}

TEST(ManifestTest, RejectsBadNames) {
  EXPECT_REJECTED(Doc(Entry("\"\"")), "entry 0: name is empty");
  EXPECT_REJECTED(Doc(Entry("\".\"")), "entry 0: name is \".\" or \"..\"");
  EXPECT_REJECTED(Doc(Entry("\"..\"")), "entry 0: name is \".\" or \"..\"");
  EXPECT_REJECTED(Doc(Entry("\"a/b\"")), "entry 0: name contains '/'");
  EXPECT_REJECTED(Doc(Entry("\"/\"")), "entry 0: name contains '/'");
  EXPECT_REJECTED(Doc(Entry("\"a\\u0000b\"")), "entry 0: name contains NUL");
  EXPECT_REJECTED(Doc(Entry("7")), "entry 0: name is not a string");
  EXPECT_REJECTED(Doc(Entry("null")), "entry 0: name is not a string");
  // "..." and ".a" are ordinary names.
  EXPECT_TRUE(
      ParseManifest(Doc(Entry("\"...\"") + "," + Entry("\".a\""))).ok());
}

TEST(ManifestTest, RejectsBadKinds) {
  for (const char* kind :
       {"\"tree\"", "\"Blob\"", "\"blob \"", "\"\"", "\"blob\\u0000\""}) {
    EXPECT_REJECTED(Doc(Entry("\"a\"", kind)),
                    "entry 0: kind is not \"blob\" or \"manifest\"");
  }
  EXPECT_REJECTED(Doc(Entry("\"a\"", "1")), "entry 0: kind is not a string");
}

TEST(ManifestTest, RejectsBadDigests) {
  const std::string hex(64, 'c');
  for (const std::string& d :
       {"\"sha256:" + hex.substr(1) + "\"", "\"sha256:" + hex + "c\"",
        "\"sha256:" + hex.substr(1) + "C\"", "\"SHA256:" + hex + "\"",
        "\"sha512:" + hex + "\"", "\"" + hex + "\"", std::string("\"\""),
        std::string("7"), std::string("null")}) {
    EXPECT_REJECTED(Doc(Entry("\"a\"", "\"blob\"", d)),
                    "entry 0: digest is malformed");
  }
  EXPECT_REJECTED(Doc(Entry("\"a\"") + "," +
                      Entry("\"b\"", "\"manifest\"", "\"sha256:xyz\"")),
                  "entry 1: digest is malformed");
}

TEST(ManifestTest, RejectsBadSizes) {
  const std::string d = "\"" + kDigestA + "\"";
  for (const char* size :
       {"-1", "1.0", "1.5", "1e3", "0.0", "\"12\"", "null", "true", "[]"}) {
    std::string msg = Rejection(Doc(Entry("\"a\"", "\"blob\"", d, size)));
    EXPECT_TRUE(msg.find("entry 0: size is not an integer") !=
                    std::string::npos ||
                msg.find("entry 0: size is negative") != std::string::npos)
        << size << " -> " << msg;
  }
  EXPECT_REJECTED(Doc(Entry("\"a\"", "\"blob\"", d, "-1")),
                  "entry 0: size is negative");
  EXPECT_REJECTED(Doc(Entry("\"a\"", "\"blob\"", d, "-9223372036854775808")),
                  "entry 0: size is negative");
}

TEST(ManifestTest, RejectsUnsortedAndDuplicateNames) {
  EXPECT_REJECTED(Doc(Entry("\"b\"") + "," + Entry("\"a\"")),
                  "entry 1: entries are not sorted by name");
  EXPECT_REJECTED(Doc(Entry("\"a\"") + "," + Entry("\"B\"")),
                  "entries are not sorted by name");
  EXPECT_REJECTED(Doc(Entry("\"ab\"") + "," + Entry("\"a\"")),
                  "entries are not sorted by name");
  EXPECT_REJECTED(
      Doc(Entry("\"a\"") + "," + Entry("\"b\"") + "," + Entry("\"b\"")),
      "entry 2: duplicate entry name");
  EXPECT_REJECTED(Doc(Entry("\"a\"") + "," +
                      Entry("\"a\"", "\"manifest\"", "\"" + kDigestB + "\"")),
                  "duplicate entry name");
}

TEST(ManifestTest, MessagesNeverEchoContents) {
  const std::string secret = "s3cretvalue";
  for (const std::string& text :
       {Doc(Entry("\"" + secret + "/x\"")),
        Doc(Entry("\"" + secret + "\"", "\"" + secret + "\"")),
        Doc(Entry("\"a\"", "\"blob\"", "\"" + secret + "\"")),
        "{\"format\":\"" + secret + "\",\"entries\":[]}",
        "{\"" + secret + "\":1}", "{\"format\": " + secret + "}",
        Doc(Entry("\"z" + secret + "\"") + "," + Entry("\"a\""))}) {
    std::string msg = Rejection(text);
    EXPECT_EQ(msg.find(secret), std::string::npos) << msg;
    EXPECT_EQ(msg.find("s3cret"), std::string::npos) << msg;
  }
}

TEST(ManifestTest, DigestOf) {
  EXPECT_EQ(DigestOf(""),
            "sha256:"
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(DigestOf("abc"),
            "sha256:"
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

}  // namespace
}  // namespace awc::cas
