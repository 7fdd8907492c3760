#include "store/s3/s3_errors.h"

#include <array>

#include "common/redact.h"

namespace awc::store::s3 {
namespace {

constexpr size_t kMaxServerText = 200;

constexpr std::array<std::string_view, 9> kTransientCodes = {
    "SlowDown",           "RequestTimeout",       "InternalError",
    "ServiceUnavailable", "Throttling",           "ThrottlingException",
    "TooManyRequests",    "RequestLimitExceeded", "OperationAborted"};

// Server-provided text, bounded and without control characters.
std::string Tame(std::string_view raw) {
  std::string text = Scrub(raw);
  std::string out;
  for (char c : std::string_view(text).substr(0, kMaxServerText)) {
    out.push_back(static_cast<unsigned char>(c) < 0x20 || c == 0x7f ? ' ' : c);
  }
  if (text.size() > kMaxServerText) out += "...";
  return out;
}

bool IsTransientCode(std::string_view code) {
  for (std::string_view c : kTransientCodes) {
    if (code == c) return true;
  }
  return false;
}

std::string Describe(std::string_view what, long http, std::string_view code,
                     std::string_view message) {
  std::string msg = "s3 " + std::string(what) + ":";
  if (http != 0) msg += " HTTP " + std::to_string(http);
  if (!code.empty()) msg += " " + Tame(code);
  if (!message.empty()) msg += ": " + Tame(message);
  return Scrub(msg);
}

}  // namespace

bool IsTransientCurlCode(CURLcode code) {
  switch (code) {
    case CURLE_COULDNT_RESOLVE_PROXY:
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_CONNECT:
    case CURLE_OPERATION_TIMEDOUT:
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_PARTIAL_FILE:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM:
    case CURLE_HTTP3:
    case CURLE_QUIC_CONNECT_ERROR:
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_WEIRD_SERVER_REPLY:
    case CURLE_AGAIN:
      return true;
    default:
      return false;
  }
}

Status ClassifyS3Code(std::string_view what, std::string_view code,
                      std::string_view message) {
  std::string msg = Describe(what, 0, code, message);
  if (code == "NoSuchKey") return Status::NotFound(msg);
  if (IsTransientCode(code)) return Status::Transient(msg);
  return Status::FailedPrecondition(msg);
}

Status ClassifyFailure(std::string_view what, const Outcome& o) {
  if (o.curl_code != CURLE_OK) {
    std::string msg =
        "s3 " + std::string(what) + ": " + curl_easy_strerror(o.curl_code);
    if (!o.curl_error.empty()) msg += " (" + Tame(o.curl_error) + ")";
    msg = Scrub(msg);
    if (IsTransientCurlCode(o.curl_code)) return Status::Transient(msg);
    switch (o.curl_code) {
      case CURLE_READ_ERROR:
        return Status::IoError(msg);
      case CURLE_OUT_OF_MEMORY:
      case CURLE_BAD_FUNCTION_ARGUMENT:
      case CURLE_FAILED_INIT:
        return Status::Internal(msg);
      default:
        return Status::FailedPrecondition(msg);
    }
  }
  const long http = o.http_status;
  std::string msg = Describe(what, http, o.s3_code, o.s3_message);
  if (http == 404) {
    if (o.s3_code == "NoSuchBucket") return Status::FailedPrecondition(msg);
    return Status::NotFound(msg);
  }
  if (IsTransientCode(o.s3_code)) return Status::Transient(msg);
  if (http == 408 || http == 429 || (http >= 500 && http != 501)) {
    return Status::Transient(msg);
  }
  if (http >= 300 && http < 400) {
    return Status::FailedPrecondition(
        msg + " (a redirect: check AWC_S3_ENDPOINT and AWC_S3_REGION)");
  }
  if (o.s3_code == "NoSuchKey") return Status::NotFound(msg);
  return Status::FailedPrecondition(msg);
}

}  // namespace awc::store::s3
