// The parser of the formula language (docs/formula-language.md).
//
// Recursive descent over the contract's grammar, with errors that carry the
// byte offset and say what was expected ("unexpected ')' at 7, expected a
// formula"). Digits are letters or integers by the contract's rule: integers
// when they have two or more digits, follow a comparison, '+' or '-', or are
// directly followed by '*', '+', '-' or a comparison; always letters as the
// operand of '#' (and of unary operators after '#'); letters otherwise.
//
// The text is UTF-8: a quoted symbol may be any printable code point ('á'),
// read as its symbol code (util/symbols.h); bare letters are ASCII only.
// Offsets in errors are byte offsets of the text.
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
#include "util/symbols.h"

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
  // Allowed symbols (symbol codes); nullopt accepts any symbol, declaring
  // quoted non-ASCII ones (used only by tests that exercise syntax alone).
  std::optional<std::string> alphabet;
  std::size_t max_depth = 1000;
  // Longest formula text, in bytes: a formula is typed by a person; a longer
  // text is refused before any work (docs/errors.md).
  std::size_t max_size = std::size_t{1} << 20;
};

Formula parse(std::string_view text, const ParseOptions& options);
Formula parse(std::string_view text, std::string_view alphabet);

// Alphabets are strings of symbol codes (util/symbols.h): one byte per
// symbol, ASCII symbols as themselves. ParseOptions::alphabet is one; the
// formula text is UTF-8, and a quoted non-ASCII symbol ('á') is its code.

// The symbol codes of an alphabet written as UTF-8 text (a catalogue file,
// --alphabet), declaring its code points (sym::intern). Only invalid UTF-8
// ("alphabet has invalid UTF-8 at byte 2 (0xff)", offsets from 0) and a full
// code table are errors here (InputError); validate_alphabet checks the
// symbols.
std::string declare_alphabet(std::string_view text);
// Throws std::invalid_argument, naming the symbol and its index (from 0), if
// the alphabet (symbol codes) is empty, repeats a symbol, or has a symbol
// that is not printable: an ASCII control or space, or a code point that
// sym::not_a_symbol refuses (a control, a space, a combining mark, ...).
void validate_alphabet(std::string_view alphabet);
// "{a,á,b}" (UTF-8); lives in util/symbols.h, where io and automata use it too.
using sym::alphabet_set;

}  // namespace softhat::logic
