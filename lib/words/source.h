// A word source: a finite set of words addressable by index, so that threads
// and shards split it into index ranges and results merge in index order
// (the output never depends on how the range was split). verify's rows,
// check's word sets and the words simulate and sweep test at each length are
// word sources.
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
  bool complete = false;  // every word of its lengths (exhaustive, of_length)

  // Every word over `alphabet` of length 0..max_len in length-lexicographic
  // order (for_each_word's order), word i computed from i alone.
  static WordSource exhaustive(const std::string& alphabet, std::size_t max_len);
  // Every word of length exactly n, in lexicographic (alphabet) order.
  static WordSource of_length(const std::string& alphabet, std::size_t n);
  // A list, in its order.
  static WordSource list(std::string label, std::vector<std::string> words);

  // Words 0..count-1 as a vector.
  std::vector<std::string> all() const;
};

// The words tested at length n (simulate's and sweep's gap and beta rows).
using WordsAt = std::function<WordSource(std::size_t n)>;

}  // namespace softhat::words
