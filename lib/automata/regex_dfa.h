// Regular expressions (RE2 syntax) to minimal DFAs: softhat's own
// construction, since RE2 does not expose its automaton (docs/regex.md).
//
// The pattern is UTF-8 text and is read code point by code point. It is
// parsed by RE2's rules for the supported subset (the same patterns are
// accepted or refused as RE2 would, with the refused RE2 features listed in
// docs/regex.md), into a syntax tree; the tree is compiled into a Thompson
// NFA over the alphabet's symbol indices (counted repetition expanded, every
// character class already intersected with the alphabet); the subset
// construction (ε-closures, on the fly, from the start) makes it
// deterministic and complete, and Hopcroft's minimize() makes it minimal.
//
// The language is { w over the alphabet : RE2::FullMatch(w, pattern) } with
// RE2 in UTF-8 mode and dot_nl set (as RegexOracle runs it); a literal
// outside the alphabet is refused as a likely mistake, while a class, a
// range, a negated class or `.` simply means its intersection with the
// alphabet.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "automata/dfa.h"
#include "util/error.h"

namespace softhat::automata {

// A pattern softhat cannot turn into a DFA: a syntax error, a supported RE2
// feature softhat refuses (anchors, flags, \b, \p{..}, ...), or a literal
// outside the alphabet. The message names what was found (or expected) and
// the byte offset in the pattern ("unexpected ')' at byte 3"). Exit status 2.
class RegexError : public InputError {
 public:
  RegexError(std::size_t offset, const std::string& message) : InputError(message), offset_(offset) {}
  // Byte offset in the pattern (0-based; the pattern's size for an error at its end).
  std::size_t offset() const { return offset_; }

 private:
  std::size_t offset_;
};

// Parenthesized groups may nest at most this deep (RegexError beyond).
inline constexpr std::size_t kRegexMaxDepth = 1000;
// RE2's limit on counted repetition: {m,n} with n <= 1000, and nested
// counted repetitions multiply to at most 1000 copies.
inline constexpr int kRegexMaxRepeat = 1000;

// The minimal complete DFA over `alphabet` (symbol codes) of the words w over
// the alphabet with RE2::FullMatch(w, pattern). Throws RegexError for
// unsupported syntax or a literal outside the alphabet (naming the byte
// offset in the pattern and what was found/expected); LimitError when the
// NFA or the DFA would exceed max_states states, or the subsets the
// construction stores exceed 32 * max_states + 2^20 NFA states in all.
// Polls softhat::interrupted() (throws Interrupted).
Dfa dfa_from_regex(std::string_view pattern, const std::string& alphabet,
                   std::size_t max_states = kDefaultMaxStates);

}  // namespace softhat::automata
