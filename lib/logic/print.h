// Printing formulas.
//
// to_string() writes the contract's concrete syntax with only the parentheses
// precedence needs; its output parses back to the same (interned) formula.
// Letters that are lowercase ASCII letters or digits are written bare, any
// other symbol quoted ('A', '(', '\'' for a quote, '\\' for a backslash).
//
// dump() writes an S-expression of the structure, e.g. (S 'a' (Y 'b')), used
// by the parser's table tests and by `softhat show`.
#pragma once

#include <string>

#include "logic/formula.h"

namespace softhat::logic {

std::string to_string(Formula f);
std::string to_string(const Term& t);
std::string dump(Formula f);
// How a symbol is written in a formula ("a", "'A'", "'\\''").
std::string symbol_literal(char c);

}  // namespace softhat::logic
