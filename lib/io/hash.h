// SHA-256 digests (OpenSSL's libcrypto), for the file hashes a corpus
// manifest records and `softhat validate` re-checks.
#pragma once

#include <string>
#include <string_view>

namespace softhat::io {

// The SHA-256 of `bytes`, as 64 lowercase hex digits.
std::string sha256_hex(std::string_view bytes);

}  // namespace softhat::io
