#if AWC_WITH_S3

#include "store/s3/s3_errors.h"

#include <gtest/gtest.h>

#include "common/redact.h"

namespace awc::store::s3 {
namespace {

Status Http(long status, std::string code = "", std::string message = "") {
  Outcome o;
  o.http_status = status;
  o.s3_code = std::move(code);
  o.s3_message = std::move(message);
  return ClassifyFailure("GET b/t1/sha256/ab/abc", o);
}

Status Curl(CURLcode code, std::string text = "") {
  Outcome o;
  o.curl_code = code;
  o.curl_error = std::move(text);
  return ClassifyFailure("GET b/k", o);
}

TEST(S3ClassifyTest, NotFound) {
  Status s = Http(404, "NoSuchKey", "The specified key does not exist.");
  EXPECT_TRUE(s.IsNotFound());
  EXPECT_EQ(s.message(),
            "s3 GET b/t1/sha256/ab/abc: HTTP 404 NoSuchKey: The specified key "
            "does not exist.");
  EXPECT_TRUE(Http(404).IsNotFound());  // HEAD: no body
}

TEST(S3ClassifyTest, MissingBucketAndAuthAreConfigurationErrors) {
  EXPECT_TRUE(Http(404, "NoSuchBucket").IsFailedPrecondition());
  EXPECT_TRUE(Http(403, "AccessDenied").IsFailedPrecondition());
  EXPECT_TRUE(Http(403, "SignatureDoesNotMatch").IsFailedPrecondition());
  EXPECT_TRUE(Http(403, "RequestTimeTooSkewed").IsFailedPrecondition());
  EXPECT_TRUE(Http(400, "InvalidArgument").IsFailedPrecondition());
  EXPECT_TRUE(Http(400).IsFailedPrecondition());
  EXPECT_TRUE(Http(405).IsFailedPrecondition());
  EXPECT_TRUE(Http(501, "NotImplemented").IsFailedPrecondition());
  Status redirect = Http(301, "PermanentRedirect");
  EXPECT_TRUE(redirect.IsFailedPrecondition());
  EXPECT_NE(redirect.message().find("AWC_S3_REGION"), std::string::npos);
}

TEST(S3ClassifyTest, ServerTroubleIsTransient) {
  EXPECT_TRUE(Http(500, "InternalError").IsTransient());
  EXPECT_TRUE(Http(502).IsTransient());
  EXPECT_TRUE(Http(503, "SlowDown").IsTransient());
  EXPECT_TRUE(Http(503).IsTransient());
  EXPECT_TRUE(Http(429).IsTransient());
  EXPECT_TRUE(Http(408).IsTransient());
  EXPECT_TRUE(Http(400, "RequestTimeout").IsTransient());
  EXPECT_TRUE(Http(400, "SlowDown").IsTransient());
  EXPECT_TRUE(Http(409, "OperationAborted").IsTransient());
}

TEST(S3ClassifyTest, NetworkFailuresAreTransient) {
  for (CURLcode c :
       {CURLE_OPERATION_TIMEDOUT, CURLE_COULDNT_CONNECT, CURLE_RECV_ERROR,
        CURLE_SEND_ERROR, CURLE_GOT_NOTHING, CURLE_PARTIAL_FILE,
        CURLE_COULDNT_RESOLVE_HOST, CURLE_SSL_CONNECT_ERROR}) {
    EXPECT_TRUE(Curl(c).IsTransient()) << c;
  }
  Status s =
      Curl(CURLE_COULDNT_CONNECT, "Failed to connect to 127.0.0.1 port 1");
  EXPECT_EQ(s.message(),
            "s3 GET b/k: Couldn't connect to server (Failed to connect to "
            "127.0.0.1 port 1)");
}

TEST(S3ClassifyTest, LocalAndTlsProblemsArePermanent) {
  EXPECT_TRUE(Curl(CURLE_PEER_FAILED_VERIFICATION).IsFailedPrecondition());
  EXPECT_TRUE(Curl(CURLE_URL_MALFORMAT).IsFailedPrecondition());
  EXPECT_TRUE(Curl(CURLE_UNSUPPORTED_PROTOCOL).IsFailedPrecondition());
  EXPECT_EQ(Curl(CURLE_READ_ERROR).code(), Status::Code::kIoError);
  EXPECT_EQ(Curl(CURLE_OUT_OF_MEMORY).code(), Status::Code::kInternal);
}

TEST(S3ClassifyTest, PerKeyCodes) {
  EXPECT_TRUE(ClassifyS3Code("DELETE b/k", "NoSuchKey", "").IsNotFound());
  EXPECT_TRUE(ClassifyS3Code("DELETE b/k", "InternalError", "").IsTransient());
  EXPECT_TRUE(ClassifyS3Code("DELETE b/k", "SlowDown", "").IsTransient());
  Status denied = ClassifyS3Code("DELETE b/k", "AccessDenied", "Access Denied");
  EXPECT_TRUE(denied.IsFailedPrecondition());
  EXPECT_EQ(denied.message(), "s3 DELETE b/k: AccessDenied: Access Denied");
}

TEST(S3ClassifyTest, ServerTextIsBoundedAndScrubbed) {
  RegisterSecret("TopSecretKey123");
  Status s = Http(500, "InternalError",
                  "echo TopSecretKey123\n" + std::string(1000, 'x'));
  ClearSecrets();
  EXPECT_EQ(s.message().find("TopSecretKey123"), std::string::npos);
  EXPECT_EQ(s.message().find('\n'), std::string::npos);
  EXPECT_LT(s.message().size(), 300u);
}

}  // namespace
}  // namespace awc::store::s3

#endif  // AWC_WITH_S3
