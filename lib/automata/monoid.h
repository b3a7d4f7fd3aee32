// The transition monoid of a DFA and the aperiodicity test: by
// Schützenberger's theorem a regular language is star-free iff the
// transition monoid of its minimal DFA is aperiodic, i.e. every element m
// has m^k = m^(k+1) for some k. When it is not, the witness is a word w
// whose powers cycle with a period p > 1: w^k != w^(k+1) for every k.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "automata/dfa.h"

namespace softhat::automata {

inline constexpr std::size_t kDefaultMaxMonoid = 200'000;
// The most state steps (one element applied to one state) the analysis takes.
inline constexpr std::size_t kMaxMonoidWork = 200'000'000;

struct AperiodicityWitness {
  std::string word;     // w
  std::size_t index;    // w^index is the first power that repeats
  std::size_t period;   // w^(index + period) = w^index, period > 1
};

struct MonoidReport {
  std::size_t size = 0;  // number of distinct transformations (identity included)
  bool aperiodic = false;
  std::optional<AperiodicityWitness> witness;
};

// Throws LimitError if the monoid exceeds max_elements.
MonoidReport analyze_monoid(const Dfa& minimal, std::size_t max_elements = kDefaultMaxMonoid);

}  // namespace softhat::automata
