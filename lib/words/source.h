// A word source: a finite set of words addressable by index, so that threads
// and shards split it into index ranges and results merge in index order
// (the output never depends on how the range was split). verify's rows and
// check's word sets are word sources.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace softhat::words {

struct WordSource {
  std::string label;        // how reports name it: "0-10 (all)", "100"
  std::uint64_t count = 0;  // words 0..count-1
  std::function<std::string(std::uint64_t)> at;

  // Every word over `alphabet` of length 0..max_len in length-lexicographic
  // order (for_each_word's order), word i computed from i alone.
  static WordSource exhaustive(const std::string& alphabet, std::size_t max_len);
  // A list, in its order.
  static WordSource list(std::string label, std::vector<std::string> words);
};

}  // namespace softhat::words
