// Hand-written membership checkers: oracles for languages that have no
// regular expression (counting languages) or whose regex is a poor oracle.
// Each is a few lines of direct code, independent of the formula evaluator.
//
//   dyck      symbols = "()[]..."  pairs of open/close brackets; balanced and
//                                  properly nested (the empty word is in)
//   anbn      symbols = "ab"/"abc" a^n b^n (c^n), n >= 0
//   majority  symbols = "ab"       strictly more a than b
//   prefix-majority  symbols = "ab"  nonempty, and every nonempty prefix has more a than b
//   twice     symbols = "ab"       exactly twice as many a as b
//   dyck-prefix symbols = "()"     a prefix of a balanced word: no prefix closes more than it opens
//   parity    symbols = "1"        an odd number of 1
//
// Some kinds also sample their positives exactly uniformly at a length
// (dyck, prefix-majority and dyck-prefix by the cycle lemma, anbn, twice),
// for corpora and verification.
#pragma once

#include <optional>
#include <random>
#include <string>
#include <string_view>

namespace softhat::oracle {

class Checker {
 public:
  // Throws softhat::InputError for an unknown kind or bad symbols.
  Checker(std::string kind, std::string symbols);
  bool accepts(std::string_view word) const;
  // A uniformly random accepted word of length n; nullopt if the kind has no
  // direct sampler (use rejection) or, for `exists`, set false if none exists.
  std::optional<std::string> sample_positive(std::mt19937_64& rng, std::size_t n, bool* exists = nullptr) const;
  // A uniformly random accepted word of length n with a rejected word at edit
  // distance 1 (the language's border), where the kind knows how; nullopt if not.
  std::optional<std::string> sample_border_positive(std::mt19937_64& rng, std::size_t n) const;
  const std::string& kind() const { return kind_; }
  const std::string& symbols() const { return symbols_; }
  std::string describe() const;

 private:
  std::string ballot_word(std::mt19937_64& rng, std::size_t n) const;
  std::string kind_;
  std::string symbols_;
};

}  // namespace softhat::oracle
