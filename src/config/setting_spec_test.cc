// The checks of the settings table that the object store relies on: the
// store URL, the S3 endpoint, region and key pair are refused when loading,
// naming the setting, so -t and startup refuse the same values.
#include "config/setting_spec.h"

#include "config/config_test_fixture.h"

namespace awc::config {
namespace {

constexpr const char* kExpected =
    " (expected memory://, file:///absolute/path or s3://bucket[/prefix])";

TEST_F(ConfigTest, StoreUrlSyntaxIsCheckedWhenLoading) {
  env_ = {{"AWC_CAS_URL", "ftp://host/x"}};
  EXPECT_EQ(
      LoadError(),
      std::string("AWC_CAS_URL: unsupported scheme \"ftp://\"") + kExpected);
  env_ = {{"AWC_CAS_URL", "file://relative"}};
  EXPECT_EQ(LoadError(),
            "AWC_CAS_URL: file:// needs an absolute path, as in "
            "file:///var/lib/awc");
#if AWC_WITH_S3
  env_ = {{"AWC_CAS_URL", "s3://Bad_Bucket"}};
  EXPECT_EQ(LoadError().rfind("AWC_CAS_URL: \"Bad_Bucket\" is not a valid", 0),
            0u);
  env_ = {{"AWC_CAS_URL", "s3://AKID:Url-Secret-123@bucket"}};
  std::string err = LoadError();
  EXPECT_EQ(err,
            "AWC_CAS_URL: s3:// URLs must not carry credentials; use "
            "AWC_S3_ACCESS_KEY_ID and AWC_S3_SECRET_ACCESS_KEY");
  env_ = {{"AWC_CAS_URL", "s3://bucket/p"}};
  EXPECT_EQ(LoadError(), "");
#endif
  for (const char* url : {"memory://", "file:///srv/cas"}) {
    env_ = {{"AWC_CAS_URL", url}};
    EXPECT_EQ(LoadError(), "") << url;
  }
  env_ = {};
  EXPECT_EQ(LoadError(), "");  // unset: RequireDaemon's business
}

TEST_F(ConfigTest, StoreUrlInTheIniFileNamesFileLineAndSetting) {
  std::string path = Write("cas.ini", "[cas]\n\nurl = gopher://x\n");
  EXPECT_EQ(LoadError(path), path +
                                 ":3: [cas] url (AWC_CAS_URL): unsupported "
                                 "scheme \"gopher://\"" +
                                 kExpected);
}

#if !AWC_WITH_S3
TEST_F(ConfigTest, S3StoreInABuildWithoutItIsRefused) {
  env_ = {{"AWC_CAS_URL", "s3://bucket"}};
  EXPECT_EQ(LoadError(),
            "AWC_CAS_URL: s3:// is not supported by this build; rebuild with "
            "cmake -DAWC_WITH_S3=ON (needs libcurl4-openssl-dev)");
}
#endif

TEST_F(ConfigTest, S3EndpointMustBeAnHttpUrlWithoutCredentials) {
  struct Case {
    const char* endpoint;
    const char* error;
  };
  const Case cases[] = {
      {"notaurl", "expected http://host[:port] or https://host[:port]"},
      {"ftp://s3.example", "the scheme must be http or https"},
      {"https://AKID:Endpoint-Secret-9@s3.example",
       "must not carry credentials; use AWC_S3_ACCESS_KEY_ID and "
       "AWC_S3_SECRET_ACCESS_KEY"},
      {"https://s3.example?x=1", "takes no query or fragment"},
      {"https://", "has no host"},
  };
  for (const Case& c : cases) {
    env_ = {{"AWC_S3_ENDPOINT", c.endpoint}};
    EXPECT_EQ(LoadError(), std::string("AWC_S3_ENDPOINT: ") + c.error)
        << c.endpoint;
  }
  for (const char* ok : {"http://127.0.0.1:9000", "https://s3.example/base"}) {
    env_ = {{"AWC_S3_ENDPOINT", ok}};
    EXPECT_EQ(LoadError(), "") << ok;
  }
}

TEST_F(ConfigTest, S3RegionMustBeARegionName) {
  for (const char* bad : {"US-EAST-1", "us:east", "eu west"}) {
    env_ = {{"AWC_S3_REGION", bad}};
    EXPECT_EQ(LoadError(),
              "AWC_S3_REGION: expected a region name such as us-east-1")
        << "\"" << bad << "\"";
  }
  env_ = {{"AWC_S3_REGION", "eu-central-2"}};
  EXPECT_EQ(LoadError(), "");
}

TEST_F(ConfigTest, S3BoundsAreTheTablesOnly) {
  env_ = {{"AWC_S3_MAX_CONCURRENCY", "257"}};
  EXPECT_EQ(LoadError(),
            "AWC_S3_MAX_CONCURRENCY: 257 is out of range (1..256)");
  env_ = {{"AWC_S3_TIMEOUT_MS", "99"}};
  EXPECT_EQ(LoadError(),
            "AWC_S3_TIMEOUT_MS: 99 is out of range (100..3600000)");
  env_ = {{"AWC_S3_MAX_CONCURRENCY", "256"}, {"AWC_S3_TIMEOUT_MS", "100"}};
  EXPECT_EQ(LoadError(), "");
}

// The repair store is read from, so it must hold something, be another
// store than the one it repairs, and have both of its keys or neither.
TEST_F(ConfigTest, TheRepairStoreIsAnotherStoreWithWholeCredentials) {
  env_ = {{"AWC_CAS_REPAIR_URL", "memory://"}};
  EXPECT_EQ(LoadError(),
            "AWC_CAS_REPAIR_URL: memory:// holds nothing to repair from; use "
            "file:// or s3://");
  env_ = {{"AWC_CAS_REPAIR_URL", "ftp://x"}};
  EXPECT_NE(LoadError().find("AWC_CAS_REPAIR_URL: unsupported scheme"),
            std::string::npos);
  env_ = {{"AWC_CAS_URL", "file:///srv/cas"},
          {"AWC_CAS_REPAIR_URL", "file:///srv/cas"}};
  EXPECT_EQ(LoadError(),
            "AWC_CAS_REPAIR_URL: the store itself cannot be its repair store");
  env_ = {{"AWC_CAS_REPAIR_URL", "s3://replica"},
          {"AWC_S3_REPAIR_SECRET_ACCESS_KEY", "Lone-Repair-Secret"}};
  EXPECT_EQ(LoadError(),
            "AWC_S3_REPAIR_ACCESS_KEY_ID and AWC_S3_REPAIR_SECRET_ACCESS_KEY "
            "must be set together");
  env_ = {{"AWC_CAS_URL", "file:///srv/cas"},
          {"AWC_CAS_REPAIR_URL", "s3://replica/cas"},
          {"AWC_S3_REPAIR_REGION", "eu-west-3"}};
  EXPECT_EQ(LoadError(), "");
}

// Two spellings of one place are one store: the URLs are compared as the
// stores open them (store_url.h), not as text.
TEST_F(ConfigTest, TheRepairStoreIsNotTheStoreSpelledAnotherWay) {
  const std::vector<std::pair<std::string, std::string>> same = {
    {"file:///srv/cas", "file:///srv/cas/"},
    {"file:///srv/cas", "file:///srv/cas///"},
    {"file:///srv/cas/", "file:///srv//cas"},
    {"file:///srv/cas", "file:///srv/./cas/."},
#if AWC_WITH_S3
    {"s3://bucket/pre", "s3://bucket/pre/"},
    {"s3://bucket/pre/", "s3://bucket/pre"},
    {"s3://bucket", "s3://bucket/"},
#endif
  };
  for (const auto& [store, repair] : same) {
    env_ = {{"AWC_CAS_URL", store}, {"AWC_CAS_REPAIR_URL", repair}};
    EXPECT_EQ(LoadError(),
              "AWC_CAS_REPAIR_URL: the store itself cannot be its repair store")
        << store << " " << repair;
  }
  const std::vector<std::pair<std::string, std::string>> others = {
    {"file:///srv/cas", "file:///srv/cas2"},
    {"file:///srv/cas", "file:///srv"},
    {"file:///srv/cas", "file:///srv/cas/replica"},
#if AWC_WITH_S3
    {"s3://bucket/pre", "s3://bucket/pre2"},
    {"s3://bucket/pre", "s3://bucket"},
    {"s3://bucket/pre", "s3://other/pre"},
    {"file:///bucket/pre", "s3://bucket/pre"},
#endif
  };
  for (const auto& [store, repair] : others) {
    env_ = {{"AWC_CAS_URL", store}, {"AWC_CAS_REPAIR_URL", repair}};
    EXPECT_EQ(LoadError(), "") << store << " " << repair;
  }
}

#if AWC_WITH_S3
TEST_F(ConfigTest, S3KeyPairGoesTogetherForTheS3Store) {
  const std::string kPair =
      "AWC_S3_ACCESS_KEY_ID and AWC_S3_SECRET_ACCESS_KEY must be set together";
  env_ = {{"AWC_CAS_URL", "s3://bucket"}, {"AWC_S3_ACCESS_KEY_ID", "AKID"}};
  EXPECT_EQ(LoadError(), kPair);
  env_ = {{"AWC_CAS_URL", "s3://bucket"},
          {"AWC_S3_SECRET_ACCESS_KEY", "Lone-Secret-42"}};
  EXPECT_EQ(LoadError(), kPair);
  env_ = {{"AWC_CAS_URL", "s3://bucket"},
          {"AWC_S3_ACCESS_KEY_ID", "AKID"},
          {"AWC_S3_SECRET_ACCESS_KEY", "Pair-Secret-42"}};
  EXPECT_EQ(LoadError(), "");
  env_ = {{"AWC_CAS_URL", "s3://bucket"}};  // unsigned requests
  EXPECT_EQ(LoadError(), "");
  // Another store does not use the keys: nothing to refuse.
  env_ = {{"AWC_CAS_URL", "file:///srv/cas"},
          {"AWC_S3_SECRET_ACCESS_KEY", "Lone-Secret-42"}};
  EXPECT_EQ(LoadError(), "");
}

TEST_F(ConfigTest, S3KeyPairIsCheckedAcrossIniAndEnvironment) {
  std::string path =
      Write("s3.ini", "[cas]\nurl = s3://bucket\n[s3]\naccess_key_id = AK\n");
  EXPECT_EQ(LoadError(path),
            "AWC_S3_ACCESS_KEY_ID and AWC_S3_SECRET_ACCESS_KEY must be set "
            "together");
  env_ = {{"AWC_S3_SECRET_ACCESS_KEY", "Env-Secret-77"}};
  EXPECT_EQ(LoadError(path), "");
}
#endif

TEST_F(ConfigTest, DescribeNeverShowsEndpointCredentials) {
  Result<Config> c = Load();
  ASSERT_TRUE(c.ok());
  c->mutable_settings().s3_endpoint = "https://AKID:Shown-Never-1@s3.example";
  std::string all = Joined(c->Describe());
  EXPECT_EQ(all.find("Shown-Never-1"), std::string::npos) << all;
  EXPECT_EQ(all.find("AKID"), std::string::npos) << all;
  EXPECT_EQ(Find(c->Describe(), "AWC_S3_ENDPOINT").value,
            "https://********@s3.example");
}

// A control byte (below 0x20, or 0x7f) cannot be meant in any value: it is
// refused naming the setting, and the error shows neither the value nor the
// byte, so it forges no line either.
TEST_F(ConfigTest, AControlByteInAValueIsRefusedNamingTheSetting) {
  const std::string kControls = std::string("\x01\t\n\r\x1b\x7f", 6);
  for (const char* name : kAllNames) {
    if (std::string_view(name) == "DATABASE_URL") continue;  // below
    for (const std::string& bad :
         {std::string("1\nAWC_GC_DRY_RUN = true"), std::string("on\r"),
          std::string("a\tb"), std::string("x\x1b[2J"), std::string("a\x7f"),
          std::string("\x01")}) {
      env_ = {{name, bad}};
      std::string err = LoadError();
      EXPECT_TRUE(err.starts_with(std::string(name) + ": control character 0x"))
          << name << " -> " << err;
      EXPECT_EQ(err.find_first_of(kControls), std::string::npos) << err;
    }
  }
  env_ = {{"AWC_WORKER_ID", "ab\ncd"}};
  EXPECT_EQ(LoadError(),
            "AWC_WORKER_ID: control character 0x0a in the value (at byte 3)");
  // From a file and from the INI file alike.
  env_ = {{"AWC_S3_SECRET_ACCESS_KEY_FILE", Write("sk", "Sec\x01ret\n")}};
  EXPECT_EQ(LoadError(),
            "AWC_S3_SECRET_ACCESS_KEY: control character 0x01 in the value "
            "(at byte 4)");
  env_ = {};
  std::string ini = Write("w.ini", "[worker]\nid = a\x1b[31mb\n");
  EXPECT_EQ(LoadError(ini), ini +
                                ":2: [worker] id (AWC_WORKER_ID): control "
                                "character 0x1b in the value (at byte 2)");
}

// DATABASE_URL: a URL holds no control byte (percent-encoding is how one is
// written); the key=value form may have blanks between its pairs, as libpq
// reads them, but none in a value. The password is not shown.
TEST_F(ConfigTest, AControlByteInTheDatabaseUrl) {
  env_ = {{"DATABASE_URL",
           "postgresql://x/db\nAWC_GC_DRY_RUN = true # environment"}};
  EXPECT_EQ(LoadError(),
            "DATABASE_URL: control character 0x0a in the value (at byte 18)");
  env_ = {{"DATABASE_URL", "postgres://u:pw\x7fSECRET@h/db"}};
  EXPECT_EQ(LoadError(),
            "DATABASE_URL: control character 0x7f in the value (at byte 16)");
  env_ = {{"DATABASE_URL", "dbname='a\nb'"}};
  EXPECT_EQ(LoadError(),
            "DATABASE_URL: control character 0x0a in the value of dbname");
  env_ = {{"DATABASE_URL",
           "password='SE\x01"
           "CRET' dbname=d"}};
  EXPECT_EQ(LoadError(),
            "DATABASE_URL: control character 0x01 in the value of password");
  env_ = {{"DATABASE_URL", "dbname=d\nhost=h\r\n\tport=5432"}};
  Result<Config> c = Load();
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(Find(c->Describe(), "DATABASE_URL").value,
            "dbname=d host=h port=5432");
}

}  // namespace
}  // namespace awc::config
