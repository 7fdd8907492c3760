// Classification of failed S3 requests (docs/store.md, "Object store"):
//
//   404 (NoSuchKey, or no code: a HEAD)        -> kNotFound
//   404 NoSuchBucket                            -> kFailedPrecondition
//   5xx but 501, 408, 429, SlowDown, RequestTimeout, InternalError,
//   ServiceUnavailable, throttling codes        -> kTransient
//   timeouts, refused or reset connections,
//   DNS failures, truncated transfers           -> kTransient
//   403, 3xx redirects, 501, other 4xx, TLS
//   certificate problems, malformed URLs        -> kFailedPrecondition
//   a file that cannot be read (PutFile)        -> kIoError
//
// Messages read "s3 <op> <bucket>/<key>: HTTP 404 NoSuchKey: <message>" or
// "s3 <op> <bucket>/<key>: <libcurl error>". They are built from the request
// target and the server's answer only, never from credentials, and pass
// through Scrub() all the same.
#ifndef AWC_STORE_S3_S3_ERRORS_H_
#define AWC_STORE_S3_S3_ERRORS_H_

#include <curl/curl.h>

#include <string>
#include <string_view>

#include "common/status.h"

namespace awc::store::s3 {

// How one request ended.
struct Outcome {
  CURLcode curl_code = CURLE_OK;  // CURLE_OK: an HTTP response arrived
  std::string curl_error;         // libcurl's error text for curl_code
  long http_status = 0;
  std::string s3_code;     // <Code> of the error body, if any
  std::string s3_message;  // <Message> of the error body, if any
};

// The Status of a request that did not succeed; `what` is "<op> <target>",
// e.g. "GET my-bucket/t1/sha256/ab/ab12…". Callers handle 2xx themselves.
Status ClassifyFailure(std::string_view what, const Outcome& outcome);

// The Status for an S3 error code alone (DeleteObjects per-key errors).
Status ClassifyS3Code(std::string_view what, std::string_view code,
                      std::string_view message);

// True for libcurl results that a later retry may not see (network, timeouts).
bool IsTransientCurlCode(CURLcode code);

}  // namespace awc::store::s3

#endif  // AWC_STORE_S3_S3_ERRORS_H_
