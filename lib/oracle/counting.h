// Exact class counts and uniform sampling for a Checker: how many words of
// length n it accepts and how many it rejects, and an exactly uniform random
// word of either class, for every kind. Rejection sampling cannot do this
// when a class is rare (dyck over "()[]{}" accepts 1 word in 2e14 at length
// 50), and doubles cannot count |alphabet|^n exactly, so the counts are GMP
// integers.
//
// Every kind's membership is decided by a small configuration that one step
// per symbol updates (a depth, #a - #b, a block and its counts, a parity
// bit, or "dead": no completion is accepted). accepted(c, r), the number of
// accepted completions of length r from configuration c, is tabulated for
// r = 0..max_length; a class's completions are accepted(c, r) or
// |alphabet|^r - accepted(c, r). Dyck words over k > 1 bracket pairs need a
// stack, but by symmetry between the pairs the number of accepted
// completions depends only on the depth: the tables count on depths, and a
// sample keeps the real stack to know which close bracket is the matching
// one. Configurations that cannot reach acceptance in the length left are
// merged into "dead", so the tables hold O(n) configurations (O(n^2) for
// anbn over "abc").
//
// A sample is the word of a uniform rank in [0, count): the rank is drawn
// once (64 bits at a time from the generator, by rejection, so it depends
// only on the generator's state), then the word is read off symbol by
// symbol in alphabet order by subtracting the counts of the smaller symbols.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <random>
#include <string>

#include "oracle/checker.h"

namespace softhat::oracle {

class ClassCounter {
 public:
  // Tables for the words of length 0..max_length over the checker's
  // symbols. Throws softhat::LimitError (Limit::kMemory), before allocating
  // them, if they would pass `max_entries` entries; an entry is one 64-bit
  // word of a count (a count below |alphabet|^r takes ~r log2|alphabet| / 64),
  // so the tables take at most 8 * max_entries bytes.
  ClassCounter(const Checker& checker, std::size_t max_length,
               std::size_t max_entries = 50'000'000);
  // The same over a language's alphabet, which must hold the checker's
  // symbols: other symbols count as Checker::accepts counts them (ignored by
  // majority, twice and parity, which is how parity's "1" checks words over
  // "01"; rejected by the others, except that prefix-majority ignores them
  // after a first symbol a). Throws InputError if the alphabet lacks a
  // checker symbol or repeats one.
  ClassCounter(const Checker& checker, std::string alphabet, std::size_t max_length,
               std::size_t max_entries = 50'000'000);

  // The number of words of length n in the class (positive: accepted), in
  // decimal; as a double (max() when it is past the double range); whether
  // it is zero. n beyond max_length throws std::out_of_range.
  std::string count(std::size_t n, bool positive) const;
  double approx_count(std::size_t n, bool positive) const;
  bool empty(std::size_t n, bool positive) const;

  // An exactly uniform random word of length n in the class, over the
  // alphabet; nullopt if the class has no word of length n. Safe to call
  // from several threads at once (each with its own generator).
  std::optional<std::string> sample(std::mt19937_64& rng, std::size_t n, bool positive) const;

  const std::string& alphabet() const;
  std::size_t max_length() const;
  std::size_t configurations() const;  // the tables' width, dead included

  struct Tables;  // defined in counting.cc

 private:
  std::shared_ptr<const Tables> tables_;
};

}  // namespace softhat::oracle
