// Streaming SHA-256 (OpenSSL EVP). Memory use is constant whatever the size
// of the input: feed it chunks with Update() and read the digest once.
#ifndef AWC_DIGEST_SHA256_H_
#define AWC_DIGEST_SHA256_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

typedef struct evp_md_ctx_st EVP_MD_CTX;

namespace awc::digest {

class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;

  void Update(const void* data, size_t len);
  void Update(std::string_view data) { Update(data.data(), data.size()); }
  // The digest as 64 lowercase hex characters. Call once.
  std::string FinishHex();

  // One-shot helper.
  static std::string HexOf(std::string_view data);

 private:
  EVP_MD_CTX* ctx_;
};

}  // namespace awc::digest

#endif  // AWC_DIGEST_SHA256_H_
