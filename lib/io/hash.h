// SHA-256 digests (OpenSSL's libcrypto), for the file hashes a corpus
// manifest records and `softhat validate` re-checks.
#pragma once

#include <initializer_list>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace softhat::io {

// The SHA-256 of `bytes`, as 64 lowercase hex digits.
std::string sha256_hex(std::string_view bytes);

// What makes a shard file (verify --shard, generate --shard) checkable:
// `json_checksum` is the SHA-256 of the document without the keys `omit`
// (its own "checksum", and keys a caller adds around it), and `json_keys_id`
// the SHA-256 of just `keys` (null where one is missing): the run a shard
// belongs to. nlohmann::json dumps objects with sorted keys, so the digests
// do not depend on the order keys were written in.
std::string json_checksum(const nlohmann::json& doc, std::initializer_list<const char*> omit);
template <class Keys>
std::string json_keys_id(const nlohmann::json& doc, const Keys& keys) {
  nlohmann::json id = nlohmann::json::object();
  for (const char* key : keys) id[key] = doc.value(key, nlohmann::json());
  return sha256_hex(id.dump());
}

}  // namespace softhat::io
