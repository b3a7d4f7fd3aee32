// The reference evaluator: the direct semantics of the formula language.
//
// truth_values() computes the truth value of a formula at every position
// 1..n of a word in O(n * |formula|): subformulas are evaluated bottom-up
// (children first, each distinct subformula once), past operators by a
// forward recurrence, future operators by a backward one, e.g.
//   (g S e)(1) = false,  (g S e)(i) = e(i-1) | (g(i-1) & (g S e)(i-1)),
// and counting terms by prefix sums (inclusive of i). A word is accepted iff
// the formula holds at n; the empty word is evaluated at the virtual point 0
// (no letter holds, counts are 0, Y O S X F U are false, H G first last are
// true, mod reads i = 0).
#pragma once

#include <cstdint>
#include <unordered_map>
#include <string_view>
#include <vector>

#include "logic/formula.h"

namespace softhat::logic {

// Truth values at positions 1..n (element i-1 is position i).
std::vector<std::uint8_t> truth_values(Formula f, std::string_view word);

// The value at the point 0 of the empty word.
bool holds_on_empty_word(Formula f);

// Acceptance: the formula at position n, or at point 0 for the empty word.
bool accepts(Formula f, std::string_view word);

// Evaluates many subformulas of one word at once (shares the work).
class Evaluation {
 public:
  Evaluation(Formula root, std::string_view word);
  // Truth values of `f` (a subformula of the root) at positions 1..n.
  const std::vector<std::uint8_t>& values(Formula f) const;

 private:
  std::vector<Formula> order_;
  std::vector<std::vector<std::uint8_t>> values_;
  std::unordered_map<Formula, std::size_t> slot_;
};

}  // namespace softhat::logic
