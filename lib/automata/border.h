// The border of a regular language: the words of L that have a word outside
// L at edit distance 1 (one substitution, insertion or deletion). It is
// regular: an NFA that guesses the single edit runs over the complement's
// DFA, and its product with L's DFA, determinized and minimized, accepts
// exactly the border. Sampling it uniformly gives MLRegTest-style adversarial
// pairs for every positive drawn.
#pragma once

#include "automata/dfa.h"

namespace softhat::automata {

Dfa border_positives(const Dfa& dfa, std::size_t max_states = kDefaultMaxStates);

// The distinct words at edit distance exactly 1 from `word` that the DFA
// rejects, sorted. O(n |Q| + n |alphabet| log) with forward states and a
// backward "accepts from here" table, instead of running every neighbour.
std::vector<std::string> rejected_neighbours(const Dfa& dfa, const std::string& word);

}  // namespace softhat::automata
