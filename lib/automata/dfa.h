// Deterministic finite automata: construction from a formula of the LTL+mod
// fragment, minimization, membership.
//
// Construction (a tableau, then subset construction, done on the fly): an
// NFA state after reading w_1..w_i is the truth value of every subformula at
// position i (plus i mod L for the mod predicates). Past operators are
// determined by the previous state (Y p at i+1 = p at i; g S e at i+1 =
// e(i) | g(i) & (g S e)(i)); future operators are guessed and checked one
// step later (X p at i = p at i+1; g U e at i = e(i+1) | g(i+1) & (g U e)(i+1))
// or at the end (X F U false, G last true at n). A state accepts when its
// guesses are consistent with the end of the word and the root holds. The
// empty word is decided at the start state by the contract's point 0.
// The subset construction makes it deterministic; Moore's partition
// refinement makes it minimal.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "logic/formula.h"
#include "util/error.h"

namespace softhat::automata {

inline constexpr std::size_t kDefaultMaxStates = 1'000'000;
// The state limit used where a caller gives none: kDefaultMaxStates unless
// the command line's global --max-states set another (once, at start).
std::size_t default_max_states();
void set_default_max_states(std::size_t limit);

// The DFA would exceed the state limit (exit status 2, with the flag to raise).
class LimitError : public InputError {
 public:
  using InputError::InputError;
};

struct Dfa {
  std::string alphabet;
  std::int32_t start = 0;
  std::vector<std::uint8_t> accepting;     // per state
  std::vector<std::int32_t> transitions;   // state * |alphabet| + symbol index

  std::size_t states() const { return accepting.size(); }
  std::int32_t next(std::int32_t state, std::size_t symbol) const {
    return transitions[static_cast<std::size_t>(state) * alphabet.size() + symbol];
  }
  // Symbols outside the alphabet reject.
  bool accepts(std::string_view word) const;
  // The complement (same states, acceptance flipped).
  Dfa complement() const;
};

// Throws LimitError past max_states (intermediate DFA), InputError for
// counting formulas (no finite automaton in general).
Dfa dfa_from_formula(logic::Formula formula, const std::string& alphabet,
                     std::size_t max_states = default_max_states());

// The minimal complete DFA of the same language (unreachable states removed).
Dfa minimize(const Dfa& dfa);
// The same by Moore's refinement (O(n^2) rounds in the worst case): the
// reference the tests compare minimize() with.
Dfa minimize_moore(const Dfa& dfa);

}  // namespace softhat::automata

namespace softhat::automata {

// A DFA from an automaton in AT&T text format, as MLRegTest's FSAs are
// written: arc lines "src dst symbol [output]" and final-state lines
// "state [weight]"; the start is the source of the first arc. States are
// non-negative integers, symbols single characters of the alphabet. A
// nondeterministic automaton is determinized; missing arcs go to a dead
// state. Throws InputError naming the line.
Dfa dfa_from_att(const std::string& text, const std::string& alphabet, std::size_t max_states = default_max_states());

}  // namespace softhat::automata
