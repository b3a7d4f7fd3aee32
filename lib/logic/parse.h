// The parser of the formula language (../shared/design/formula-language.md).
//
// Recursive descent over the contract's grammar, with errors that carry the
// byte offset and say what was expected ("unexpected ')' at 7, expected a
// formula"). Digits are letters or integers by the contract's rule: integers
// when they have two or more digits, follow a comparison, '+' or '-', or are
// directly followed by '*', '+', '-' or a comparison; always letters as the
// operand of '#' (and of unary operators after '#'); letters otherwise.
//
// Nesting is limited (ParseOptions::max_depth) so that pathological input
// (100,000 nested parentheses or Y) gets a clear error instead of a stack
// overflow here or in any recursive pass over the formula later.
#pragma once

#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include "logic/formula.h"

namespace softhat::logic {

class ParseError : public std::runtime_error {
 public:
  ParseError(std::size_t offset, const std::string& message)
      : std::runtime_error(message), offset_(offset) {}
  std::size_t offset() const { return offset_; }

 private:
  std::size_t offset_;
};

struct ParseOptions {
  // Allowed symbols; nullopt accepts any symbol (used only by tests that
  // exercise syntax alone).
  std::optional<std::string> alphabet;
  std::size_t max_depth = 1000;
  // Longest formula text, in bytes: a formula is typed by a person; a longer
  // text is refused before any work (docs/errors.md).
  std::size_t max_size = std::size_t{1} << 20;
};

Formula parse(std::string_view text, const ParseOptions& options);
Formula parse(std::string_view text, std::string_view alphabet);

// Throws std::invalid_argument with a message if the alphabet is empty, has a
// duplicate, or has a character that is not printable ASCII other than space.
void validate_alphabet(std::string_view alphabet);
// "{a,b}"
std::string alphabet_set(std::string_view alphabet);

}  // namespace softhat::logic
