#include "util/shard.h"

#include <fmt/format.h>

#include <cstdio>

#include "util/error.h"

namespace softhat {

Shard parse_shard(const std::string& text) {
  unsigned long long k = 0, n = 0;
  char extra = 0;
  if (text.find('-') != std::string::npos || text.find('+') != std::string::npos ||
      std::sscanf(text.c_str(), "%llu/%llu%c", &k, &n, &extra) != 2 || n == 0 || k >= n) {
    throw InputError(fmt::format("bad shard '{}' (expected K/N with 0 <= K < N, e.g. 0/4)", text));
  }
  return {k, n};
}

std::pair<std::uint64_t, std::uint64_t> shard_range(std::uint64_t total, const Shard& shard) {
  const auto cut = [&](std::uint64_t k) {
    return static_cast<std::uint64_t>((static_cast<unsigned __int128>(total) * k) / shard.count);
  };
  return {cut(shard.index), cut(shard.index + 1)};
}

}  // namespace softhat
