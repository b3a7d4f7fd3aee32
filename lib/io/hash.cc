#include "io/hash.h"

#include <fmt/format.h>
#include <openssl/evp.h>

#include <memory>
#include <stdexcept>

namespace softhat::io {

std::string sha256_hex(std::string_view bytes) {
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), EVP_MD_CTX_free);
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  if (!ctx || EVP_DigestInit_ex(ctx.get(), EVP_sha256(), nullptr) != 1 ||
      EVP_DigestUpdate(ctx.get(), bytes.data(), bytes.size()) != 1 ||
      EVP_DigestFinal_ex(ctx.get(), digest, &size) != 1) {
    throw std::runtime_error("SHA-256 failed (libcrypto)");
  }
  std::string hex;
  for (unsigned int i = 0; i < size; ++i) hex += fmt::format("{:02x}", digest[i]);
  return hex;
}

std::string json_checksum(const nlohmann::json& doc, std::initializer_list<const char*> omit) {
  nlohmann::json content = doc;
  for (const char* key : omit) content.erase(key);
  return sha256_hex(content.dump());
}

}  // namespace softhat::io
