#include "digest/sha256.h"

#include <openssl/evp.h>

#include <cstdlib>

namespace awc::digest {

Sha256::Sha256() : ctx_(EVP_MD_CTX_new()) {
  // Failure here means the process is out of memory or OpenSSL is broken;
  // neither is recoverable by a caller.
  if (ctx_ == nullptr || EVP_DigestInit_ex(ctx_, EVP_sha256(), nullptr) != 1) {
    abort();
  }
}

Sha256::~Sha256() { EVP_MD_CTX_free(ctx_); }

void Sha256::Update(const void* data, size_t len) {
  if (len > 0 && EVP_DigestUpdate(ctx_, data, len) != 1) abort();
}

std::string Sha256::FinishHex() {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  if (EVP_DigestFinal_ex(ctx_, md, &n) != 1) abort();
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(2 * n);
  for (unsigned int i = 0; i < n; ++i) {
    out += kHex[md[i] >> 4];
    out += kHex[md[i] & 15];
  }
  return out;
}

std::string Sha256::HexOf(std::string_view data) {
  Sha256 h;
  h.Update(data);
  return h.FinishHex();
}

}  // namespace awc::digest
