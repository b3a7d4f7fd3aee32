// Deterministic work splits for clusters: shard `index` of `count` takes the
// contiguous index range [total * index / count, total * (index+1) / count)
// of any ordered list of work items (verify: the words of every row;
// generate: the lengths).
#pragma once

#include <cstdint>
#include <string>
#include <utility>

namespace softhat {

struct Shard {
  std::uint64_t index = 0;
  std::uint64_t count = 1;
  bool whole() const { return count == 1; }
  std::string str() const { return std::to_string(index) + "/" + std::to_string(count); }
};

// Parses "K/N" (0 <= K < N); throws InputError.
Shard parse_shard(const std::string& text);
std::pair<std::uint64_t, std::uint64_t> shard_range(std::uint64_t total, const Shard& shard);

}  // namespace softhat
