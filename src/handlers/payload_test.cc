#include "handlers/payload.h"

#include <gtest/gtest.h>

#include <string>

namespace awc::handlers {
namespace {

JsonPtr MustParse(const std::string& text) {
  Result<JsonPtr> r = ParseJson(text);
  EXPECT_TRUE(r.ok()) << text << ": " << r.status().ToString();
  if (!r.ok()) return nullptr;
  return std::move(r).value();
}

// The decoder of one id-shaped payload.
using IdDecoder = Result<int64_t> (*)(const json_t*);

Result<int64_t> SnapshotId(const json_t* j) {
  Result<SnapshotPayload> r = DecodeSnapshotPayload(j);
  if (!r.ok()) return r.status();
  return r->snapshot_id;
}

Result<int64_t> WorkspaceId(const json_t* j) {
  Result<WorkspacePayload> r = DecodeWorkspacePayload(j);
  if (!r.ok()) return r.status();
  return r->workspace_id;
}

struct IdCase {
  const char* key;
  IdDecoder decode;
};

class IdPayloadTest : public ::testing::TestWithParam<IdCase> {
 protected:
  std::string Obj(const std::string& value) const {
    return std::string("{\"") + GetParam().key + "\": " + value + "}";
  }

  // Decodes `text` (valid JSON) and returns the error message, "" if it
  // decoded.
  std::string Error(const std::string& text) const {
    JsonPtr j = MustParse(text);
    if (j == nullptr) return "<unparsed>";
    Result<int64_t> r = GetParam().decode(j.get());
    if (r.ok()) return "";
    EXPECT_TRUE(r.status().IsInvalidArgument()) << r.status().ToString();
    return r.status().message();
  }
};

TEST_P(IdPayloadTest, AcceptsAPositiveInteger) {
  for (int64_t v :
       {int64_t{1}, int64_t{42}, int64_t{9007199254740993}, INT64_MAX}) {
    JsonPtr j = MustParse(Obj(std::to_string(v)));
    ASSERT_NE(j, nullptr);
    Result<int64_t> r = GetParam().decode(j.get());
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(*r, v);
  }
}

TEST_P(IdPayloadTest, RejectsMissingKey) {
  std::string key = GetParam().key;
  EXPECT_EQ(Error("{}"), "payload lacks \"" + key + "\"");
}

// A later release's producer may add a key: this build ignores it, so that
// both builds of a fleet upgraded host by host run the job.
TEST_P(IdPayloadTest, IgnoresAKeyItDoesNotKnow) {
  JsonPtr j = MustParse(Obj("42").insert(1, "\"added_later\": {\"x\": 1}, "));
  Result<int64_t> r = GetParam().decode(j.get());
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(*r, 42);
}

TEST_P(IdPayloadTest, RejectsWrongTypes) {
  std::string key = GetParam().key;
  const std::string not_int = "payload key \"" + key + "\" is not an integer";
  for (const char* v : {"\"42\"", "42.0", "4.2e1", "true", "false", "null",
                        "[42]", "{\"id\": 42}"}) {
    EXPECT_EQ(Error(Obj(v)), not_int) << v;
  }
}

TEST_P(IdPayloadTest, RejectsZeroAndNegative) {
  std::string key = GetParam().key;
  for (const char* v : {"0", "-1", "-9223372036854775808"}) {
    EXPECT_EQ(Error(Obj(v)), "payload key \"" + key + "\" must be >= 1") << v;
  }
}

TEST_P(IdPayloadTest, RejectsNonObjects) {
  for (const char* v :
       {"[]", "[{\"snapshot_id\": 42}]", "42", "\"42\"", "null", "true"}) {
    EXPECT_EQ(Error(v), "payload is not a JSON object") << v;
  }
}

TEST_P(IdPayloadTest, RejectsTheOtherKinds) {
  // A snapshot payload is not a workspace payload and vice versa.
  std::string other = std::string(GetParam().key) == "snapshot_id"
                          ? "{\"workspace_id\": 42}"
                          : "{\"snapshot_id\": 42}";
  EXPECT_NE(Error(other), "");
  EXPECT_NE(Error("{\"tenant_id\": \"t1\"}"), "");
}

TEST_P(IdPayloadTest, ErrorsDoNotEchoValues) {
  for (const char* v : {"\"s3cretvalue\"", "-424242", "4242.5"}) {
    std::string err = Error(Obj(v));
    EXPECT_EQ(err.find("s3cret"), std::string::npos) << err;
    EXPECT_EQ(err.find("4242"), std::string::npos) << err;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Ids, IdPayloadTest,
    ::testing::Values(IdCase{"snapshot_id", SnapshotId},
                      IdCase{"workspace_id", WorkspaceId}),
    [](const ::testing::TestParamInfo<IdCase>& param_info) {
      return std::string(param_info.param.key);
    });

// --- ScrubPayload: a snapshot id and an optional window ---------------------

TEST(ScrubPayloadTest, TheWindowIsOptional) {
  Result<ScrubPayload> plain =
      DecodeScrubPayload(MustParse(R"({"snapshot_id": 7})").get());
  ASSERT_TRUE(plain.ok()) << plain.status().ToString();
  EXPECT_EQ(plain->snapshot_id, 7);
  EXPECT_EQ(plain->reverify_after_secs, 0);
  Result<ScrubPayload> windowed = DecodeScrubPayload(
      MustParse(R"({"snapshot_id": 7, "reverify_after_secs": 86400})").get());
  ASSERT_TRUE(windowed.ok()) << windowed.status().ToString();
  EXPECT_EQ(windowed->reverify_after_secs, 86400);
}

TEST(ScrubPayloadTest, RejectsABadWindowAndIgnoresOtherKeys) {
  for (const char* text : {R"({"snapshot_id": 7, "reverify_after_secs": -1})",
                           R"({"snapshot_id": 7, "reverify_after_secs": "1"})",
                           R"({"snapshot_id": 7, "reverify_after_secs": 1.5})",
                           R"({"reverify_after_secs": 1})"}) {
    Result<ScrubPayload> r = DecodeScrubPayload(MustParse(text).get());
    EXPECT_FALSE(r.ok()) << text;
    EXPECT_TRUE(r.status().IsInvalidArgument()) << text;
  }
  // A later producer's key.
  Result<ScrubPayload> r = DecodeScrubPayload(
      MustParse(R"({"snapshot_id": 7, "workspace_id": 1})").get());
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->snapshot_id, 7);
}

// --- ParseJson
// ------------------------------------------------------------------

TEST(ParseJsonTest, AcceptsObjectsAndOtherValues) {
  EXPECT_TRUE(ParseJson("{\"snapshot_id\": 42}").ok());
  EXPECT_TRUE(ParseJson("  {}  ").ok());
  EXPECT_TRUE(ParseJson("42").ok());
  EXPECT_TRUE(ParseJson("[1,2]").ok());
}

TEST(ParseJsonTest, RejectsDuplicateKeys) {
  Result<JsonPtr> r = ParseJson("{\"snapshot_id\": 1, \"snapshot_id\": 2}");
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsInvalidArgument());
  EXPECT_NE(r.status().message().find("not valid JSON"), std::string::npos)
      << r.status().message();
}

TEST(ParseJsonTest, RejectsInvalidJson) {
  for (const char* bad : {"", "{", "{\"snapshot_id\": 42", "{snapshot_id: 42}",
                          "{\"snapshot_id\": 42}}", "{\"snapshot_id\": 042}",
                          "nul", "{\"a\": \"\\u0000\"}",
                          "{\"snapshot_id\": 99999999999999999999}", "\xff"}) {
    Result<JsonPtr> r = ParseJson(bad);
    EXPECT_FALSE(r.ok()) << bad;
    if (!r.ok()) {
      EXPECT_TRUE(r.status().IsInvalidArgument()) << bad;
      EXPECT_EQ(r.status().message().rfind("not valid JSON", 0), 0u)
          << r.status().message();
    }
  }
}

TEST(ParseJsonTest, ErrorsDoNotEchoThePayload) {
  // jansson's own messages quote the offending token ("near 'xyz'").
  for (const char* bad :
       {"{\"snapshot_id\": s3cretvalue}", "{\"s3cretvalue\" 1}",
        "{\"snapshot_id\": 1, \"snapshot_id\": 2, s3cretvalue}",
        "[\"s3cretvalue\"", "s3cretvalue",
        "{\"s3cretvalue\": 1, \"s3cretvalue\": 2}"}) {
    Result<JsonPtr> r = ParseJson(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.status().message().find("s3cret"), std::string::npos)
        << r.status().message();
  }
}

TEST(ParseJsonTest, EmbeddedNulIsNotTheEnd) {
  std::string text("{\"snapshot_id\": 42}\0{", 21);
  EXPECT_FALSE(ParseJson(text).ok());
}

// --- tenant payloads
// ---------------------------------------------------------------

std::string TenantError(const std::string& text) {
  JsonPtr j = MustParse(text);
  if (j == nullptr) return "<unparsed>";
  Result<TenantPayload> r = DecodeTenantPayload(j.get());
  if (r.ok()) return "";
  EXPECT_TRUE(r.status().IsInvalidArgument());
  return r.status().message();
}

std::string Tenant(const std::string& id) {
  return "{\"tenant_id\": \"" + id + "\"}";
}

TEST(TenantPayloadTest, AcceptsValidIds) {
  for (const std::string& id :
       {std::string("t1"), std::string("0"), std::string("a-b_c"),
        std::string("9tenant-"), std::string(63, 'a'),
        "z" + std::string(62, '_')}) {
    JsonPtr j = MustParse(Tenant(id));
    ASSERT_NE(j, nullptr);
    Result<TenantPayload> r = DecodeTenantPayload(j.get());
    ASSERT_TRUE(r.ok()) << id << ": " << r.status().ToString();
    EXPECT_EQ(r->tenant_id, id);
  }
}

TEST(TenantPayloadTest, RejectsInvalidIds) {
  const std::string bad_id =
      "payload key \"tenant_id\" is not a tenant id "
      "(^[a-z0-9][a-z0-9_-]{0,62}$)";
  for (const std::string& id :
       {std::string(""), std::string(64, 'a'), std::string("Tenant"),
        std::string("tEnant"), std::string("-t"), std::string("_t"),
        std::string("t/1"), std::string(".."), std::string("t.1"),
        std::string("../etc"), std::string("t 1"), std::string("t\\n"),
        std::string("caf\\u00e9")}) {
    EXPECT_EQ(TenantError(Tenant(id)), bad_id) << id;
  }
}

TEST(TenantPayloadTest, RejectsWrongShapes) {
  EXPECT_EQ(TenantError("{}"), "payload lacks \"tenant_id\"");
  const std::string bad_id =
      "payload key \"tenant_id\" is not a tenant id "
      "(^[a-z0-9][a-z0-9_-]{0,62}$)";
  for (const char* v : {"42", "null", "true", "[\"t1\"]", "{\"id\": \"t1\"}"}) {
    EXPECT_EQ(TenantError(std::string("{\"tenant_id\": ") + v + "}"), bad_id)
        << v;
  }
  // A later producer's key is ignored.
  EXPECT_EQ(TenantError("{\"tenant_id\": \"t1\", \"dry_run\": true}"), "");
  EXPECT_EQ(TenantError("[\"t1\"]"), "payload is not a JSON object");
  EXPECT_EQ(TenantError("\"t1\""), "payload is not a JSON object");
  EXPECT_NE(TenantError("{\"snapshot_id\": 1}"), "");
}

TEST(TenantPayloadTest, RejectsEmbeddedNul) {
  // Built directly: "t1\0x" must not pass as "t1".
  JsonPtr j(json_object());
  json_object_set_new(j.get(), "tenant_id", json_stringn("t1\0x", 4));
  Result<TenantPayload> r = DecodeTenantPayload(j.get());
  EXPECT_FALSE(r.ok()) << (r.ok() ? r->tenant_id : "");
}

TEST(TenantPayloadTest, ErrorsDoNotEchoValues) {
  std::string err = TenantError(Tenant("S3CRET-VALUE"));
  EXPECT_EQ(err.find("S3CRET"), std::string::npos) << err;
  err = TenantError("{\"tenant_id\": \"t1\", \"zz\": \"S3CRET-VALUE\"}");
  EXPECT_EQ(err.find("S3CRET"), std::string::npos) << err;
}

// --- PayloadReader
// ---------------------------------------------------------------------

TEST(PayloadReaderTest, RefusedKeysAreNamedOnlyWhenTheyLookLikeKeys) {
  constexpr auto kRefused = PayloadReader::OtherKeys::kRefused;
  JsonPtr j = MustParse("{\"snapshotid\": 1}");
  EXPECT_TRUE(PayloadReader(j.get()).ExpectObject({"snapshot_id"}).ok());
  Status s = PayloadReader(j.get()).ExpectObject({"snapshot_id"}, kRefused);
  EXPECT_EQ(s.message(), "payload has unexpected key \"snapshotid\"");
  // Arbitrary producer text in a key position is not echoed.
  j = MustParse("{\"password=s3cretvalue here\": 1}");
  s = PayloadReader(j.get()).ExpectObject({"snapshot_id"}, kRefused);
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.message().find("s3cret"), std::string::npos) << s.message();
}

TEST(PayloadReaderTest, OptionalInt) {
  JsonPtr j = MustParse("{\"keep_last\": 3}");
  PayloadReader r(j.get());
  Result<int64_t> v = r.OptionalInt("keep_last", 0, 99);
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(*v, 3);
  v = r.OptionalInt("keep_within_secs", 0, 99);
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(*v, 99);
  v = r.OptionalInt("keep_last", 4, 99);
  EXPECT_FALSE(v.ok());
  j = MustParse("{\"keep_last\": null}");
  EXPECT_FALSE(PayloadReader(j.get()).OptionalInt("keep_last", 0, 1).ok());
}

TEST(PayloadReaderTest, IntHonoursItsMinimum) {
  JsonPtr j = MustParse("{\"n\": 0}");
  PayloadReader r(j.get());
  Result<int64_t> v = r.Int("n", 0);
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(*v, 0);
  EXPECT_EQ(r.Int("n", 1).status().message(), "payload key \"n\" must be >= 1");
}

}  // namespace
}  // namespace awc::handlers
