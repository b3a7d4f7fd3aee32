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
// The subset construction makes it deterministic; Hopcroft's partition
// refinement (minimize()) makes it minimal.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "logic/formula.h"
#include "util/error.h"

namespace softhat::automata {

// The state limit where a caller gives none. There is no process-wide
// limit: the CLI's --max-states travels as a value (lang::Language records
// the limit it was built under, and passes it on).
inline constexpr std::size_t kDefaultMaxStates = 1'000'000;

// The DFA would exceed the state limit (exit status 2; util/error.h).
using LimitError = softhat::LimitError;

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
                     std::size_t max_states = kDefaultMaxStates);

// The minimal complete DFA of the same language (unreachable states removed).
Dfa minimize(const Dfa& dfa);
// The same by Moore's refinement (up to n rounds, O(k n^2) in the worst case): the
// reference the tests compare minimize() with.
Dfa minimize_moore(const Dfa& dfa);

}  // namespace softhat::automata

namespace softhat::automata {

// A DFA from an acceptor in AT&T/OpenFst text format, read strictly, as
// MLRegTest writes its FSAs (docs/catalogue.md, "Automata"):
//   src dst in out [weight]   an arc (in = out: an acceptor; a transducer is refused)
//   src dst label             an arc (OpenFst's acceptor form)
//   state [weight]            a final state
// Fields are separated by tabs or spaces; blank lines are skipped. States are
// non-negative integers; the source of the first arc is the initial state
// (a file of final states and no arcs: the first one listed, so the language
// is {empty word}). Missing arcs reject (an implicit sink). Labels are one
// Unicode code point each (UTF-8), declared as symbols (util/symbols.h).
// Weights must be finite numbers and are ignored (the unweighted language).
// The alphabet is `alphabet` (symbol codes) if given, else the arcs' symbols
// in order of first appearance. The result is minimal (minimize()).
//
// Throws InputError "NAME:LINE: cause" for a nondeterministic automaton (a
// state with two arcs on one label to different targets), an epsilon arc
// (<eps>, <epsilon>, ε), in != out, a weight that is not a number, a
// malformed line (field count, a state that is not a non-negative integer),
// a label that is not one code point or is outside `alphabet`, and "NAME:
// cause" for a file with no arcs and no final states; LimitError past
// max_states states in the file.
struct AttSource {
  std::string name;            // the file, as messages name it
  std::size_t first_line = 1;  // the file's line number of the text's first line (text inlined in a TOML file)
};
Dfa dfa_from_att(std::string_view text, const AttSource& source, const std::optional<std::string>& alphabet = std::nullopt,
                 std::size_t max_states = kDefaultMaxStates);

}  // namespace softhat::automata
