// The transformer acceptor of a catalogue language: compiled from its
// formula (compile/compiler.h), or built by the language's named
// construction when it has one (Dyck-k: compile/dyck.h); for a transduction
// task, its transducer (k-hop: compile/khop.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "cascade/derive.h"
#include "compile/compiler.h"
#include "lang/language.h"

namespace softhat::compile {

struct Acceptor {
  model::Transformer model;
  std::string origin;  // "formula" or "construction <name>"
};

// Throws InputError if the language has neither a formula nor a construction.
Acceptor build_acceptor(const lang::Language& language, const CompileOptions& options);

// Whether build_acceptor() can build one (for a language defined by a regex
// or an automaton alone: if it is star-free; build_acceptor refuses it with
// cascade::NotStarFree otherwise).
bool has_acceptor(const lang::Language& language);

// A language with no formula, construction or task, defined by its regex or
// automaton: its transformer is compiled from the formula derived from its
// minimal DFA (cascade/derive.h), proved equal to that DFA first.
bool defined_by_automaton(const lang::Language& language);
// That formula. Throws cascade::NotStarFree (exit 2) with a witness.
cascade::Derived derive_language_formula(const lang::Language& language);

// `options` for compiling a derived formula: its names as labels, and its
// proved exclusivity facts. `derived` must outlive the result.
CompileOptions derived_options(CompileOptions options, const cascade::Derived& derived);

// The smallest inverse temperature at length n for which the construction's
// own proof guarantees exact verdicts at every word of the length, where the
// construction has a closed-form proof: k-hop heads need off-target weight
// <= 1/4, i.e. beta * delta >= ln 5, and since/until heads whose outputs
// one FFN reads m at a time (Plan::max_raw_inputs) need m times it <= 1/4,
// i.e. beta * delta >= ln(4m + 1) (delta = 1/(n+1) bounded, 1 unbounded:
// docs/compiler.md); sign heads need
// beta >= 2(n+1) ln(3n) and >= 4 ln 3. nullopt for Dyck-k (use the AHAT
// theorem: softhat simulate).
std::optional<double> proven_beta(const lang::Language& language, const CompileOptions& options, std::int64_t n);

}  // namespace softhat::compile
