// Integers read from JSON documents a user hands in (model headers, shard
// files, manifests). By hand because nlohmann's get<int>() casts a float
// such as 4e80 to an integer (undefined behaviour: found by fuzz_model and
// fuzz_merge) and narrows big or negative integers silently.
#pragma once

#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>

namespace softhat::io {

// A JSON integer within [lo, hi]; else InputError naming `what`.
std::int64_t json_integer(const nlohmann::json& v, std::int64_t lo, std::int64_t hi, const std::string& what);
// A non-negative JSON integer at most hi; else InputError naming `what`.
std::uint64_t json_unsigned(const nlohmann::json& v, const std::string& what,
                            std::uint64_t hi = std::numeric_limits<std::uint64_t>::max());
inline int json_int(const nlohmann::json& v, const std::string& what) {
  return static_cast<int>(json_integer(v, std::numeric_limits<int>::min(), std::numeric_limits<int>::max(), what));
}

}  // namespace softhat::io
