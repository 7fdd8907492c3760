// Transfer: one S3 request on a libcurl easy handle — its options (SigV4
// signing, timeouts, body source), the response capture and the Status it
// ends with.
//
// Signing: CURLOPT_AWS_SIGV4 "aws:amz:<region>:s3" with the key id and
// secret as CURLOPT_USERNAME / CURLOPT_PASSWORD (so a ':' in either is
// harmless). libcurl 7.88 neither adds x-amz-content-sha256 (S3 requires
// it) nor hashes a body it streams, so every request carries that header
// and libcurl signs with its value: the SHA-256 of an in-memory body (the
// empty string's for GET and HEAD), UNSIGNED-PAYLOAD for a streamed file.
// Requests are anonymous when no key id is configured.
//
// Response bodies: a 2xx body goes to the sink (GET) or into a bounded
// string (ListObjectsV2, DeleteObjects); any other body is kept (at most
// 64 KiB) and parsed for the S3 error code. A sink error aborts the
// transfer and is what Finish() returns.
#ifndef AWC_STORE_S3_S3_TRANSFER_H_
#define AWC_STORE_S3_S3_TRANSFER_H_

#include <curl/curl.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/env.h"
#include "common/status.h"
#include "digest/sha256.h"
#include "store/object_store.h"

namespace awc::store::s3 {

// The request options shared by every transfer of one store.
struct ClientOptions {
  std::string access_key_id;      // "" = anonymous requests
  std::string secret_access_key;  // secret: only ever handed to libcurl
  std::string region;
  long timeout_ms = 30000;
  long connect_timeout_ms = 10000;
};

inline constexpr std::string_view kEmptySha256 =
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
inline constexpr std::string_view kUnsignedPayload = "UNSIGNED-PAYLOAD";

// Base64 of the MD5 of `data` (the Content-MD5 header).
std::string Md5Base64(std::string_view data);

class Transfer {
 public:
  // `method` is GET, HEAD, PUT or POST; `what` names operation and target
  // for messages ("GET bucket/key").
  Transfer(const ClientOptions& options, std::string method, std::string url,
           std::string what);
  ~Transfer();
  Transfer(const Transfer&) = delete;
  Transfer& operator=(const Transfer&) = delete;

  // The request body: `body` (kept by the caller until the end; hashed) or
  // the open file `file` (kept by the caller until the end; streamed;
  // UNSIGNED-PAYLOAD). The file is hashed as it is read and must be
  // exactly the size it had when it was opened, in bytes that
  // hash to `sha256_hex`: otherwise the transfer is aborted before its
  // last bytes are sent, so the object never becomes visible, and Finish()
  // returns kCorruption. (An empty body has no last bytes: the caller
  // checks an empty file before it starts the transfer.)
  void SetBody(std::string_view body);
  void SetFileBody(RandomAccessFile* file, std::string sha256_hex);
  void AddHeader(std::string header);
  // Where a 2xx response body goes: the sink, or a string of at most
  // `limit` bytes (more is an error).
  void StreamTo(const ChunkSink* sink) { sink_ = sink; }
  void CollectTo(std::string* out, size_t limit) {
    collect_ = out;
    collect_limit_ = limit;
  }

  // Sets every option on a fresh easy handle; it must stay with this
  // transfer until Finish().
  Status Configure(CURL* easy);
  // The request's Status once libcurl ended it with `result`: OK for 2xx.
  // Reads what it needs from the handle, which is free afterwards.
  Status Finish(CURLcode result);

  long http_status() const { return http_status_; }
  int64_t content_length() const { return content_length_; }
  // Connections this transfer had to open (0 when it reused one).
  long new_connections() const { return new_connections_; }

 private:
  enum class BodyKind { kNone, kMemory, kFile };

  static size_t OnWrite(char* data, size_t size, size_t n, void* self);
  static size_t OnRead(char* buf, size_t size, size_t n, void* self);
  // Called with the last bytes of a file body read: whether the file ends
  // there and hashes as expected (else read_status_ says why).
  bool VerifyFileBody();
  static int OnSeek(void* self, curl_off_t offset, int origin);

  const ClientOptions& options_;
  std::string method_;
  std::string url_;
  std::string what_;
  std::vector<std::string> extra_headers_;
  BodyKind body_kind_ = BodyKind::kNone;
  std::string_view body_;
  RandomAccessFile* file_ = nullptr;
  uint64_t body_size_ = 0;
  uint64_t body_offset_ = 0;
  std::string expect_sha256_;
  std::unique_ptr<digest::Sha256> file_hash_;  // of body[0, body_offset_)
  const ChunkSink* sink_ = nullptr;
  std::string* collect_ = nullptr;
  size_t collect_limit_ = 0;

  CURL* easy_ = nullptr;
  curl_slist* headers_ = nullptr;
  char errbuf_[CURL_ERROR_SIZE] = {};
  long http_status_ = 0;
  bool status_known_ = false;
  std::string error_body_;
  Status sink_status_;
  Status read_status_;
  bool collect_overflow_ = false;
  int64_t content_length_ = -1;
  long new_connections_ = 0;
};

}  // namespace awc::store::s3

#endif  // AWC_STORE_S3_S3_TRANSFER_H_
