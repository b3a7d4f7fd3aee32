// DFA → past-LTL formula DAG, through the holonomy cascade (cascade/holonomy.h).
//
// Each level d of the cascade is an identity–reset automaton whose input at
// position i is the letter w_i and the levels above at position i−1. For a
// coordinate value t of level d let IN be "position i resets level d to t"
// and RESET "position i resets level d" (both disjunctions of
// letter ∧ upper-prefix-at-i−1 terms, read off the cascade's action table;
// IN implies RESET). Then, with stay = ¬RESET,
//
//   prev(d,t) = stay S IN ∨ [t initial] ∧ H stay
//
// is "level d holds t at i − 1" (the last reset before i went to t, or there
// was none and t is where level d starts: the weak since, one head). "The
// levels above at i−1" is a conjunction of prev(d',t'). The DFA's state
// after w_1..w_{i−1} is the cascade's chain, a conjunction pre(leaf) of
// prev(d,t) over the levels, so acceptance at i is
//   accept = ∨_leaves pre(leaf) ∧ (the letters a with δ(state(leaf), a) accepting)
// with "no letter" (true only at the point 0 of the empty word) added when
// the start state accepts, or the same with the rejecting letters negated.
// prev(d, ·) of one level exclude each other (`exclusive`, checked by the
// proof), so the compiler reads ors of terms over them as sums.
//
// The formula is a DAG: every subformula is built once (the factories
// hash-cons), so its size is linear in the cascade's action table, and the
// compiler gives each shared node one residual coordinate.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "automata/dfa.h"
#include "cascade/holonomy.h"
#include "logic/formula.h"
#include "logic/print.h"

namespace softhat::cascade {

struct Derived {
  std::string route;  // "holonomy" or "ordered" (partially ordered DFAs, derive.cc)
  logic::Formula formula;
  logic::Names names;                   // the named shared subformulas
  std::vector<logic::Formula> defined;  // named subformulas, children before parents
  Cascade cascade;
  std::size_t dag_nodes = 0;            // distinct subformulas
  std::size_t temporal_nodes = 0;       // Y O H S nodes
  std::size_t proof_states = 0;         // states of the derived formula's automaton reached by the proof
  // Groups of subformulas of which at most one holds at any position of any
  // word (prev(d, ·) of a level; every prev(q) on the ordered route). The
  // proof checks them on every product edge; empty when not proved.
  std::vector<std::vector<logic::Formula>> exclusive;
};

// Derives the formula of a minimal complete DFA. When `prove` is set (the
// default), proves the derived formula equal to `minimal` by a breadth-first
// search of the product of `minimal` with the formula's past-operator memory
// (one bit per Y O H S first node); a difference is a std::logic_error naming
// the shortest differing word (an internal error: a bug, never a silent wrong
// model). Throws NotStarFree, LimitError, Interrupted.
// `route`: automatic (partially ordered DFAs take the per-state route, the
// others the holonomy cascade), or one forced (the tests compare them;
// "ordered" needs a partially ordered DFA).
enum class Route { kAuto, kHolonomy, kOrdered };
Derived derive_formula(const automata::Dfa& minimal, const Limits& limits = {}, bool prove = true,
                       Route route = Route::kAuto);

// Whether every cycle of the DFA is a self-loop.
bool partially_ordered(const automata::Dfa& dfa);

// The shortest (then first in alphabet order) word on which two complete DFAs
// over the same alphabet differ, or nullopt when they are equivalent.
std::optional<std::string> first_difference(const automata::Dfa& a, const automata::Dfa& b);

// The DAG as definitions, one per named subformula, children first, then the
// root: "t2.1 = ...", "accept = ...".
std::string print_definitions(const Derived& derived);

// One line: levels, tiles per level, DAG size.
std::string describe_cascade(const Derived& derived);

}  // namespace softhat::cascade
