// Counting the words a DFA accepts at each length, and sampling uniformly
// among them.
//
// count(q, l) = number of words of length l leading from q to acceptance:
// count(q, 0) = [q accepts], count(q, l) = sum_a count(q.a, l-1). Counts grow
// like |alphabet|^l, so they are kept as (mantissa, binary exponent) pairs
// normalized per length; lengths of 10,000 and more work. Sampling walks from
// the start, choosing each next symbol with probability proportional to the
// count it leaves: exactly uniform up to double rounding (relative 1e-15).
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "automata/dfa.h"

namespace softhat::automata {

class WordCounter {
 public:
  WordCounter(const Dfa& dfa, std::size_t max_length);

  // The bytes its table takes for a DFA of `states` states (saturating):
  // callers check it against --max-memory before building one.
  static std::size_t table_bytes(std::size_t states, std::size_t max_length);

  // log2 of the number of accepted words of this length (-inf if none).
  double log2_count(std::size_t length) const;
  // The exact count if it is below 2^53, else -1.
  std::int64_t exact_count(std::size_t length) const;
  // A uniformly random accepted word; requires log2_count(length) > -inf.
  std::string sample(std::mt19937_64& rng, std::size_t length) const;
  // Every accepted word of this length, in lexicographic (alphabet) order,
  // stopping after `limit` words.
  std::vector<std::string> enumerate(std::size_t length, std::size_t limit) const;

  const Dfa& dfa() const { return dfa_; }
  std::size_t max_length() const { return max_length_; }

 private:
  // count(q, l) = value_[l][q] * 2^scale_[l]
  double weight(std::size_t length, std::int32_t q) const { return value_[length][q]; }
  Dfa dfa_;
  std::size_t max_length_;
  std::vector<std::vector<double>> value_;
  std::vector<int> scale_;
};

}  // namespace softhat::automata
