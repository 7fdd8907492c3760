#include "store/s3/s3_transfer.h"

#include <openssl/evp.h>

#include <algorithm>
#include <cstring>

#include "digest/sha256.h"
#include "store/s3/s3_errors.h"
#include "store/s3/s3_xml.h"

namespace awc::store::s3 {
namespace {

// Below this rate for the whole timeout, a transfer counts as stalled.
constexpr long kStallBytesPerSec = 1024;

constexpr size_t kMaxErrorBody = 64 * 1024;

#ifdef CURL_WRITEFUNC_ERROR
constexpr size_t kWriteError = CURL_WRITEFUNC_ERROR;
#else
constexpr size_t kWriteError = 0;
#endif

bool Is2xx(long status) { return status >= 200 && status < 300; }

}  // namespace

std::string Md5Base64(std::string_view data) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  if (EVP_Digest(data.data(), data.size(), md, &len, EVP_md5(), nullptr) != 1) {
    return "";
  }
  unsigned char b64[4 * ((EVP_MAX_MD_SIZE + 2) / 3) + 1];
  int n = EVP_EncodeBlock(b64, md, static_cast<int>(len));
  return std::string(reinterpret_cast<char*>(b64), static_cast<size_t>(n));
}

Transfer::Transfer(const ClientOptions& options, std::string method,
                   std::string url, std::string what)
    : options_(options),
      method_(std::move(method)),
      url_(std::move(url)),
      what_(std::move(what)) {}

Transfer::~Transfer() { curl_slist_free_all(headers_); }

void Transfer::SetBody(std::string_view body) {
  body_kind_ = BodyKind::kMemory;
  body_ = body;
  body_size_ = body.size();
}

void Transfer::SetFileBody(RandomAccessFile* file, std::string sha256_hex) {
  body_kind_ = BodyKind::kFile;
  file_ = file;
  body_size_ = file->size();
  expect_sha256_ = std::move(sha256_hex);
  file_hash_ = std::make_unique<digest::Sha256>();
}

void Transfer::AddHeader(std::string header) {
  extra_headers_.push_back(std::move(header));
}

Status Transfer::Configure(CURL* easy) {
  if (easy == nullptr) return Status::Internal("s3: curl_easy_init failed");
  easy_ = easy;
  std::string payload_hash;
  switch (body_kind_) {
    case BodyKind::kNone:
      payload_hash = std::string(kEmptySha256);
      break;
    case BodyKind::kMemory:
      payload_hash = digest::Sha256::HexOf(body_);
      break;
    case BodyKind::kFile:
      payload_hash = std::string(kUnsignedPayload);
      break;
  }
  std::vector<std::string> lines = {"x-amz-content-sha256: " + payload_hash};
  lines.insert(lines.end(), extra_headers_.begin(), extra_headers_.end());
  for (const std::string& line : lines) {
    curl_slist* next = curl_slist_append(headers_, line.c_str());
    if (next == nullptr) return Status::Internal("s3: out of memory");
    headers_ = next;
  }

  curl_easy_setopt(easy, CURLOPT_URL, url_.c_str());
  curl_easy_setopt(easy, CURLOPT_HTTPHEADER, headers_);
  curl_easy_setopt(easy, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(easy, CURLOPT_HTTP_VERSION,
                   static_cast<long>(CURL_HTTP_VERSION_1_1));
  curl_easy_setopt(easy, CURLOPT_FOLLOWLOCATION, 0L);
  curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(easy, CURLOPT_TCP_KEEPALIVE, 1L);
  // No bound on a whole request, which would fail every large object on a
  // slow link; instead a request that moves less than kStallBytesPerSec for
  // the timeout (whole seconds, libcurl's granularity) is abandoned.
  curl_easy_setopt(easy, CURLOPT_TIMEOUT_MS, 0L);
  curl_easy_setopt(easy, CURLOPT_LOW_SPEED_LIMIT, kStallBytesPerSec);
  curl_easy_setopt(easy, CURLOPT_LOW_SPEED_TIME,
                   std::max(1L, (options_.timeout_ms + 999) / 1000));
  curl_easy_setopt(easy, CURLOPT_CONNECTTIMEOUT_MS,
                   options_.connect_timeout_ms);
  curl_easy_setopt(easy, CURLOPT_ERRORBUFFER, errbuf_);
  curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, &Transfer::OnWrite);
  curl_easy_setopt(easy, CURLOPT_WRITEDATA, this);
  if (!options_.access_key_id.empty()) {
    std::string sigv4 = "aws:amz:" + options_.region + ":s3";
    curl_easy_setopt(easy, CURLOPT_AWS_SIGV4, sigv4.c_str());
    curl_easy_setopt(easy, CURLOPT_USERNAME, options_.access_key_id.c_str());
    curl_easy_setopt(easy, CURLOPT_PASSWORD,
                     options_.secret_access_key.c_str());
  }

  if (method_ == "HEAD") {
    curl_easy_setopt(easy, CURLOPT_NOBODY, 1L);
  } else if (method_ == "PUT") {
    curl_easy_setopt(easy, CURLOPT_UPLOAD, 1L);
    curl_easy_setopt(easy, CURLOPT_INFILESIZE_LARGE,
                     static_cast<curl_off_t>(body_size_));
    curl_easy_setopt(easy, CURLOPT_READFUNCTION, &Transfer::OnRead);
    curl_easy_setopt(easy, CURLOPT_READDATA, this);
    curl_easy_setopt(easy, CURLOPT_SEEKFUNCTION, &Transfer::OnSeek);
    curl_easy_setopt(easy, CURLOPT_SEEKDATA, this);
  } else if (method_ == "POST") {
    curl_easy_setopt(easy, CURLOPT_POST, 1L);
    curl_easy_setopt(easy, CURLOPT_POSTFIELDS, body_.data());
    curl_easy_setopt(easy, CURLOPT_POSTFIELDSIZE_LARGE,
                     static_cast<curl_off_t>(body_.size()));
  } else if (method_ != "GET") {
    return Status::Internal("s3: unsupported method " + method_);
  }
  return Status::OK();
}

size_t Transfer::OnWrite(char* data, size_t size, size_t n, void* self_ptr) {
  auto* self = static_cast<Transfer*>(self_ptr);
  size_t len = size * n;
  if (!self->status_known_) {
    curl_easy_getinfo(self->easy_, CURLINFO_RESPONSE_CODE, &self->http_status_);
    self->status_known_ = true;
  }
  if (!Is2xx(self->http_status_)) {
    size_t room =
        kMaxErrorBody - std::min(kMaxErrorBody, self->error_body_.size());
    self->error_body_.append(data, std::min(room, len));
    return len;  // drain the rest so the connection can be reused
  }
  if (self->sink_ != nullptr) {
    Status st = (*self->sink_)(std::string_view(data, len));
    if (!st.ok()) {
      self->sink_status_ = st;
      return kWriteError;
    }
  } else if (self->collect_ != nullptr) {
    if (self->collect_->size() + len > self->collect_limit_) {
      self->collect_overflow_ = true;
      return kWriteError;
    }
    self->collect_->append(data, len);
  }
  return len;
}

size_t Transfer::OnRead(char* buf, size_t size, size_t n, void* self_ptr) {
  auto* self = static_cast<Transfer*>(self_ptr);
  uint64_t left = self->body_size_ - self->body_offset_;
  size_t want = static_cast<size_t>(std::min<uint64_t>(size * n, left));
  if (self->body_kind_ == BodyKind::kMemory) {
    memcpy(buf, self->body_.data() + self->body_offset_, want);
    self->body_offset_ += want;
    return want;
  }
  if (want == 0) return 0;
  Result<size_t> read = self->file_->ReadAt(self->body_offset_, buf, want);
  if (!read.ok()) {
    self->read_status_ =
        Status::IoError("s3 " + self->what_ + ": " + read.status().message());
    return CURL_READFUNC_ABORT;
  }
  size_t got = *read;
  if (got == 0) {
    self->read_status_ = Status::Corruption(
        "s3 " + self->what_ + ": the file shrank while uploading");
    return CURL_READFUNC_ABORT;
  }
  self->file_hash_->Update(buf, got);
  self->body_offset_ += got;
  // The last bytes go out only once the whole file is known to hash to
  // the digest: a request that never completes stores nothing.
  if (self->body_offset_ == self->body_size_ && !self->VerifyFileBody()) {
    return CURL_READFUNC_ABORT;
  }
  return got;
}

bool Transfer::VerifyFileBody() {
  char extra;
  Result<size_t> more = file_->ReadAt(body_size_, &extra, 1);
  if (!more.ok()) {
    read_status_ =
        Status::IoError("s3 " + what_ + ": " + more.status().message());
    return false;
  }
  if (*more != 0 || file_hash_->FinishHex() != expect_sha256_) {
    read_status_ = Status::Corruption(
        "s3 " + what_ + ": the file does not hash to the object's digest");
    return false;
  }
  file_hash_ = std::make_unique<digest::Sha256>();  // for a rewind
  return true;
}

int Transfer::OnSeek(void* self_ptr, curl_off_t offset, int origin) {
  auto* self = static_cast<Transfer*>(self_ptr);
  // Rewinds only: a file body is hashed from its start.
  if (origin != SEEK_SET || offset != 0) return CURL_SEEKFUNC_CANTSEEK;
  self->body_offset_ = 0;
  if (self->body_kind_ == BodyKind::kFile) {
    self->file_hash_ = std::make_unique<digest::Sha256>();
  }
  return CURL_SEEKFUNC_OK;
}

Status Transfer::Finish(CURLcode result) {
  curl_easy_getinfo(easy_, CURLINFO_RESPONSE_CODE, &http_status_);
  curl_off_t length = -1;
  curl_easy_getinfo(easy_, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &length);
  content_length_ = length;
  curl_easy_getinfo(easy_, CURLINFO_NUM_CONNECTS, &new_connections_);
  easy_ = nullptr;

  if (!sink_status_.ok()) return sink_status_;
  if (!read_status_.ok()) return read_status_;
  if (collect_overflow_) {
    return Status::FailedPrecondition("s3 " + what_ +
                                      ": the response is too large");
  }
  if (result == CURLE_OK && Is2xx(http_status_)) return Status::OK();
  Outcome o;
  o.curl_code = result;
  o.http_status = http_status_;
  if (result != CURLE_OK) {
    o.curl_error = errbuf_;
  } else {
    ErrorBody body = ParseErrorBody(error_body_);
    o.s3_code = std::move(body.code);
    o.s3_message = std::move(body.message);
  }
  return ClassifyFailure(what_, o);
}

}  // namespace awc::store::s3
