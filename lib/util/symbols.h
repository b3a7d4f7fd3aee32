// Symbols are Unicode code points; inside softhat each symbol is one byte.
//
// Every file and stream softhat reads or writes is UTF-8, and one code point
// is one symbol (MLRegTest's 64-letter alphabets hold á à ǎ é è ě ó ò ǒ ú ù
// ǔ). Inside the library a word is a std::string with one byte per symbol,
// its *symbol code*: an ASCII code point is its own code, and every other
// code point gets a code from 0x80 to 0xFF, given out in the order alphabets
// declare their symbols (`intern`). So an ASCII alphabet behaves exactly as
// before, and every algorithm (evaluator, DFA, engine, corpora) keeps
// indexing one symbol by one byte. Text crosses the boundary only through
// `decode` (UTF-8 → codes, refusing invalid UTF-8 and undeclared code points)
// and `encode` (codes → UTF-8).
//
// The code table is process-wide: it is written only while alphabets are
// declared (catalogue loading, --alphabet, .att and model files), under a
// lock, and read lock-free. At most 128 distinct non-ASCII symbols may be
// declared in one run (an InputError beyond).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace softhat::sym {

inline constexpr std::size_t kMaxNonAscii = 128;

// The code of a code point, declaring it if new. Throws InputError when the
// table is full, for code points that cannot be symbols (NUL, surrogates,
// > U+10FFFF).
char intern(char32_t code_point);
// The code of an already declared code point (ASCII always is).
std::optional<char> find(char32_t code_point);
// The code point of a code (ASCII: itself; an undeclared code: U+FFFD).
char32_t code_point(char code);

// One step of UTF-8 decoding at text[pos]: the code point and its length in
// bytes, or nullopt for invalid UTF-8 (overlong, surrogate, truncated, > U+10FFFF).
struct Decoded {
  char32_t code_point;
  std::size_t length;
};
std::optional<Decoded> decode_one(std::string_view text, std::size_t pos);
// The UTF-8 bytes of one code point.
std::string utf8(char32_t code_point);

// Whether text is valid UTF-8; if not, `bad` gets the byte offset of the
// first invalid sequence.
bool valid_utf8(std::string_view text, std::size_t* bad = nullptr);

// Codes → UTF-8 (a word, an alphabet). Total: undeclared codes print as U+FFFD.
std::string encode(std::string_view codes);
// The UTF-8 text of one code.
std::string encode(char code);

// UTF-8 → codes, without declaring anything. On failure returns nullopt and
// fills `error` with what is wrong and where (byte offset), e.g.
// "invalid UTF-8 at byte 3" or "symbol 'ǖ' (U+01D6) at byte 2 is in no alphabet".
std::optional<std::string> decode(std::string_view text, std::string* error = nullptr);
// UTF-8 → codes, declaring every new code point (alphabets, .att symbols).
// Throws InputError for invalid UTF-8 (with the byte offset) or a full table.
std::string declare(std::string_view text);

// "U+01D6"
std::string code_point_name(char32_t code_point);
// How to show one code in a message: 'a', 'ǎ', or a hex escape for controls.
std::string describe(char code);

// Why a code point cannot be a symbol of an alphabet, or nullptr if it can.
// Symbols are printable: not a control character (C0, DEL, C1), not a space
// (ASCII or Unicode white space), not an invisible format character (zero
// width spaces and joiners, direction marks, the byte order mark), not a
// combining mark (U+0300..U+036F and the other combining blocks: softhat does
// not normalize, so "á" must be the precomposed U+00E1), not a noncharacter.
const char* not_a_symbol(char32_t code_point);

// The number of code points of `text` (invalid bytes count one each).
std::size_t count_code_points(std::string_view text);
// The longest prefix of `text` of at most max_bytes bytes that does not cut a
// UTF-8 sequence in two.
std::string_view utf8_prefix(std::string_view text, std::size_t max_bytes);
// `text` as valid UTF-8 for echoing: every byte that is not part of a valid
// sequence is written as the four characters \xNN (lower-case hex).
std::string escape_invalid(std::string_view text);

// Orders words (codes) by code point, symbol by symbol, so that sorted sets
// of words do not depend on the order in which codes were given out. For
// ASCII words this is the byte order.
struct CodePointLess {
  bool operator()(std::string_view a, std::string_view b) const;
};

// How many non-ASCII code points are declared (tests).
std::size_t declared();

// An alphabet (symbol codes) as a set for messages: "{a,b,c}", in UTF-8.
std::string alphabet_set(std::string_view alphabet);

}  // namespace softhat::sym
