// Printing formulas.
//
// to_string() writes the contract's concrete syntax with only the parentheses
// precedence needs; its output parses back to the same (interned) formula.
// Letters that are lowercase ASCII letters or digits are written bare, any
// other symbol quoted ('A', '(', '\'' for a quote, '\\' for a backslash,
// 'á' for a non-ASCII symbol: the output is UTF-8).
//
// dump() writes an S-expression of the structure, e.g. (S 'a' (Y 'b')), used
// by the parser's table tests and by `softhat show`.
#pragma once

#include <string>
#include <unordered_map>

#include "logic/formula.h"

namespace softhat::logic {

std::string to_string(Formula f);
// Names for shared subformulas of a formula DAG (e.g. the formulas derived
// from automata, whose tree would be exponentially large).
using Names = std::unordered_map<Formula, std::string>;
// The same, writing every named proper subformula by its name (the output
// does not parse back unless the names are expanded; see `softhat show`).
std::string to_string(Formula f, const Names& names);
std::string to_string(const Term& t);
std::string dump(Formula f);
// How a symbol is written in a formula ("a", "'A'", "'\\''").
std::string symbol_literal(char c);

}  // namespace softhat::logic
