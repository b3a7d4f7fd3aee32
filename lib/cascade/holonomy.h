// The Krohn–Rhodes holonomy decomposition of a star-free DFA into a cascade
// of identity–reset automata (Zeiger; Eilenberg vol. B; Egri-Nagy & Nehaniv's
// computational form, as in GAP's SgpDec), in the aperiodic case.
//
// The skeleton. Let Q be the states of the minimal complete DFA and I the
// images Q·w of every word w (Q itself included) together with every
// singleton {q}. A ≤ B (A is subduced by B) when A ⊆ B·w for some w; A ≡ B
// when both hold, and then B = A·w maps A onto B one to one. Equivalent sets
// form the strongly connected components of the orbit graph A → A·a. The
// tiles of a set A are the maximal proper subsets of A in I; they cover A.
// The depth of a set is the length of the longest chain of strict
// subductions from Q down to it (Q has depth 1).
//
// Aperiodicity, decided here without the transition monoid: if a word w maps
// a set A of I onto itself, then w is the identity on A. It suffices to
// check it on the generators: choose a representative R of every class and
// for every member P the one-to-one map f_P: R → P induced by a word; every
// letter a with P·a in the class must then satisfy a∘f_P = f_{P·a}. If every
// stabiliser acts trivially the semigroup is aperiodic (s^m = s^(m+1) once
// Q·s^m is stable); if one does not, the failing word u permutes R
// nontrivially, and x·u^k·y, x·u^(k+1)·y differ for a state of R on a cycle
// of u (witness below). So the language is star-free iff this check passes
// (Schützenberger, McNaughton–Papert).
//
// The cascade. A state is a tile chain Q = A_0 ⊃ A_1 ⊃ … ⊃ A_m = {q}, each
// A_(j+1) a tile of A_j; q is the DFA state. The chain's coordinate at level
// d (1 ≤ d < deepest) is, if some A_j (not a singleton) has depth d, the tile
// of A_j's representative that corresponds to A_(j+1) (through f_(A_j));
// otherwise the level is skipped (⊥). A letter a maps a chain to the chain
// that dominates its images A_j·a (the images, with the first tile containing
// the next image inserted wherever an image is not a tile of the one above).
// At level d this is the identity when the set covering level d is mapped
// onto the new chain's set at level d (then both are equivalent and, by
// aperiodicity, the round trip through the representative is the identity
// on tiles), and otherwise a reset to a constant that depends only on the
// letter and on the levels above. That is one identity–reset automaton per
// level, and the chain's last set is the DFA's state: the cascade covers the
// DFA. The construction checks every one of these facts on every reachable
// chain and letter instead of assuming them (std::logic_error if one fails).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "automata/dfa.h"
#include "util/error.h"

namespace softhat::cascade {

// Words x, u, y and k such that x·u^k·y and x·u^(k+1)·y differ in the
// language, and x·u^m·y is in the language exactly when x·u^(m+period)·y is
// (m ≥ k): u generates a cycle of states of length `period` > 1.
struct StarFreeWitness {
  std::string x, u, y;  // symbol codes
  std::size_t k = 0;
  std::size_t period = 2;
};

// The language is not star-free (exit 2).
class NotStarFree : public InputError {
 public:
  NotStarFree(const std::string& what, StarFreeWitness w) : InputError(what), witness(std::move(w)) {}
  StarFreeWitness witness;
};

struct Limits {
  std::size_t max_sets = 200'000;     // image sets of the skeleton
  std::size_t max_chains = 1'000'000;  // reachable tile chains
  std::size_t max_work = 2'000'000'000;  // word operations on state sets
  std::size_t max_states = automata::kDefaultMaxStates;  // product states of the equivalence proof (derive.h)
};

// One level's identity–reset automaton.
struct Level {
  int depth = 0;                // 1-based
  std::size_t classes = 0;      // equivalence classes of sets at this depth (parallel components)
  std::size_t tiles = 0;        // coordinate values (tiles of the classes' representatives)
  std::size_t used_values = 0;  // values that occur in reachable chains
};

// Level d's action on one letter and one prefix of upper coordinates.
inline constexpr int kIdentity = -2;
inline constexpr int kSkipped = -1;  // the ⊥ value: the level is skipped

struct Cascade {
  std::string alphabet;
  std::size_t dfa_states = 0;
  std::size_t image_sets = 0;  // |I| without singletons
  std::size_t classes = 0;
  std::vector<Level> levels;  // levels[d-1] for depth d

  // Reachable chains, by their coordinates (levels.size() values each,
  // kSkipped or a value id of the level), and the DFA state each stands for.
  std::vector<std::vector<int>> chains;
  std::vector<std::int32_t> chain_state;
  std::size_t initial_chain = 0;

  // Prefixes of chains: a trie. Node 0 is the empty prefix; node p at level
  // d (prefix of levels 1..d) has parent `prefix_parent[p]` and last value
  // `prefix_value[p]`.
  std::vector<int> prefix_parent, prefix_value, prefix_level;

  // For level d (index d-1), letter a and prefix node p of levels 1..d-1:
  // the action (kIdentity, kSkipped or the value reset to), or -3 if no
  // reachable chain has that prefix.
  struct Action {
    int letter;
    int prefix;
    int action;
  };
  std::vector<std::vector<Action>> actions;  // per level
};

// The holonomy cascade of a minimal complete DFA. Throws NotStarFree with a
// witness, automata::LimitError past a limit, Interrupted on a signal.
Cascade holonomy(const automata::Dfa& minimal, const Limits& limits = {});

}  // namespace softhat::cascade
