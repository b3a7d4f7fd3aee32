// util/symbols: UTF-8 decoding and encoding on every form (1 to 4 bytes),
// every class of invalid UTF-8 refused with its byte offset, the code table
// (ASCII is itself, other code points get 0x80.., a full table is an
// InputError), and the helpers every boundary uses.
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "util/error.h"
#include "util/symbols.h"

using namespace softhat;

namespace {
std::string bytes(std::initializer_list<int> b) {
  std::string s;
  for (int c : b) s += static_cast<char>(c);
  return s;
}

std::string decode_error(std::string_view text) {
  std::string error;
  if (sym::decode(text, &error)) return "(decoded)";
  return error;
}
}  // namespace

TEST_CASE("unicode symbols: utf8 and decode_one round trip on every length and at every boundary", "[unicode]") {
  // The first and last code point of each length, and a few in between.
  const std::vector<std::pair<char32_t, std::size_t>> points = {
      {0x01, 1},     {0x41, 1},     {0x7F, 1},     {0x80, 2},      {0xE1, 2},      {0x7FF, 2},
      {0x800, 3},    {0x1CE, 2},    {0xD7FF, 3},   {0xE000, 3},    {0xFFFD, 3},    {0xFFFF, 3},
      {0x10000, 4},  {0x1D49C, 4},  {0x10FFFF, 4}};
  for (const auto& [cp, length] : points) {
    INFO(sym::code_point_name(cp));
    const std::string text = sym::utf8(cp);
    REQUIRE(text.size() == length);
    const auto d = sym::decode_one(text, 0);
    REQUIRE(d);
    CHECK(d->code_point == cp);
    CHECK(d->length == length);
    CHECK(sym::valid_utf8(text));
  }
  CHECK(sym::utf8(0xE1) == "\xC3\xA1");
  CHECK(sym::utf8(0x1CE) == "\xC7\x8E");
  CHECK(sym::utf8(0x1D49C) == "\xF0\x9D\x92\x9C");
  // Every code point of the Basic Multilingual Plane outside the surrogates, and a sample above.
  for (char32_t cp = 1; cp < 0x110000; cp += cp < 0x10000 ? 1 : 97) {
    if (cp >= 0xD800 && cp <= 0xDFFF) continue;
    const std::string text = sym::utf8(cp);
    const auto d = sym::decode_one(text, 0);
    if (!d || d->code_point != cp || d->length != text.size()) FAIL("round trip of " << sym::code_point_name(cp));
  }
}

TEST_CASE("unicode symbols: every class of invalid UTF-8 is refused with its byte offset", "[unicode]") {
  struct Bad {
    const char* what;
    std::string text;
    std::size_t at;
  };
  const std::vector<Bad> bad = {
      {"stray continuation byte", "a" + bytes({0x80}), 1},
      {"stray continuation byte (last of its range)", bytes({0xBF}), 0},
      {"overlong 2-byte (C0)", bytes({0xC0, 0xAF}), 0},
      {"overlong 2-byte (C1)", "ab" + bytes({0xC1, 0xBF}), 2},
      {"overlong 3-byte", bytes({0xE0, 0x80, 0xAF}), 0},
      {"overlong 3-byte (U+07FF)", bytes({0xE0, 0x9F, 0xBF}), 0},
      {"overlong 4-byte", bytes({0xF0, 0x80, 0x80, 0xAF}), 0},
      {"overlong 4-byte (U+FFFF)", bytes({0xF0, 0x8F, 0xBF, 0xBF}), 0},
      {"surrogate U+D800", bytes({0xED, 0xA0, 0x80}), 0},
      {"surrogate U+DFFF", "x" + bytes({0xED, 0xBF, 0xBF}), 1},
      {"above U+10FFFF (F4 90)", bytes({0xF4, 0x90, 0x80, 0x80}), 0},
      {"above U+10FFFF (F5)", bytes({0xF5, 0x80, 0x80, 0x80}), 0},
      {"lead byte F8", bytes({0xF8, 0x88, 0x80, 0x80, 0x80}), 0},
      {"byte FE", bytes({0xFE}), 0},
      {"byte FF", bytes({0xFF}), 0},
      {"truncated 2-byte at the end", "ab" + bytes({0xC3}), 2},
      {"truncated 3-byte at the end", bytes({0xE4, 0xB8}), 0},
      {"truncated 4-byte at the end", bytes({0xF0, 0x9D, 0x92}), 0},
      {"truncated 3-byte before ASCII", bytes({0xE4, 0xB8}) + "a", 0},
      {"lead byte followed by a lead byte", bytes({0xC3, 0xC3, 0xA1}), 0},
  };
  for (const Bad& b : bad) {
    INFO(b.what);
    std::size_t at = 99;
    CHECK_FALSE(sym::valid_utf8(b.text, &at));
    CHECK(at == b.at);
    CHECK_FALSE(sym::decode_one(b.text, b.at));
    CHECK(decode_error(b.text) == "invalid UTF-8 at byte " + std::to_string(b.at));
    CHECK_THROWS_WITH(sym::declare(b.text), "invalid UTF-8 at byte " + std::to_string(b.at));
  }
}

TEST_CASE("unicode symbols: ASCII is its own code, other code points get codes from 0x80, decode and encode invert", "[unicode]") {
  CHECK(sym::declare("abc") == "abc");
  CHECK(sym::encode("abc") == "abc");
  CHECK(sym::decode("a(b)~") == std::optional<std::string>("a(b)~"));
  const std::string codes = sym::declare("a\u00e1\u01ce\U0001D49C");  // a á ǎ 𝒜
  REQUIRE(codes.size() == 4);
  CHECK(codes[0] == 'a');
  for (std::size_t i = 1; i < 4; ++i) CHECK(static_cast<unsigned char>(codes[i]) >= 0x80);
  CHECK(codes[1] != codes[2]);
  CHECK(sym::encode(codes) == "a\u00e1\u01ce\U0001D49C");
  CHECK(sym::decode("\u01ce\u00e1a") == std::optional<std::string>(std::string{codes[2], codes[1], 'a'}));
  CHECK(sym::declare("\u00e1") == std::string(1, codes[1]));  // declaring again: the same code
  CHECK(sym::intern(0xE1) == codes[1]);
  CHECK(sym::find(0xE1) == codes[1]);
  CHECK(sym::code_point(codes[3]) == 0x1D49C);
  CHECK(sym::encode(codes[2]) == "\u01ce");
  CHECK(sym::describe(codes[1]) == "'\u00e1'");
  CHECK(sym::describe('\x01') == "'\\x01'");
  // Undeclared code points do not decode (without declaring anything).
  const std::size_t before = sym::declared();
  CHECK(decode_error("ab\u01d6") == "symbol '\u01d6' (U+01D6) at byte 2 is in no alphabet");
  CHECK(sym::declared() == before);
  CHECK_FALSE(sym::find(0x1D6));
  // Code points that can never be symbols.
  CHECK_THROWS_WITH(sym::intern(0), "U+0000 cannot be a symbol");
  CHECK_THROWS_WITH(sym::intern(0xD800), "U+D800 cannot be a symbol");
  CHECK_THROWS_WITH(sym::intern(0x110000), "U+110000 cannot be a symbol");
}

TEST_CASE("unicode symbols: a full code table is an InputError and changes nothing", "[unicode]") {
  // In a child process: the table is process-wide and other tests share it.
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    std::size_t added = 0;
    bool ok = false;
    for (char32_t cp = 0x4E00;; ++cp) {  // CJK ideographs: printable, never declared by other tests
      try {
        sym::intern(cp);
        ++added;
      } catch (const InputError& e) {
        ok = sym::declared() == sym::kMaxNonAscii &&
             std::string(e.what()) == "symbol '" + sym::utf8(cp) + "' (" + sym::code_point_name(cp) +
                                          "): more than 128 distinct non-ASCII symbols in one run" &&
             !sym::find(cp) && sym::find(cp - 1);
        try {
          sym::declare("a" + sym::utf8(cp + 1));
          ok = false;
        } catch (const InputError&) {
        }
        ok = ok && sym::declare("ab") == "ab" && sym::declare(sym::utf8(cp - 1)).size() == 1;
        break;
      }
      if (added > sym::kMaxNonAscii) break;
    }
    _exit(ok ? 0 : 1);
  }
  int status = 0;
  REQUIRE(waitpid(pid, &status, 0) == pid);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
}

TEST_CASE("unicode symbols: printable symbols, prefixes, escapes and the code point order", "[unicode]") {
  CHECK(sym::not_a_symbol('a') == nullptr);
  CHECK(sym::not_a_symbol(0xE1) == nullptr);
  CHECK(sym::not_a_symbol(0x1D49C) == nullptr);
  CHECK(std::string(sym::not_a_symbol(0x09)) == "a control character");
  CHECK(std::string(sym::not_a_symbol(0x85)) == "a control character");
  CHECK(std::string(sym::not_a_symbol(' ')) == "a space");
  CHECK(std::string(sym::not_a_symbol(0xA0)) == "a space");
  CHECK(std::string(sym::not_a_symbol(0x3000)) == "a space");
  CHECK(std::string(sym::not_a_symbol(0x200B)) == "an invisible format character");
  CHECK(std::string(sym::not_a_symbol(0xFEFF)) == "an invisible format character");
  CHECK(std::string(sym::not_a_symbol(0x301)) == "a combining mark");
  CHECK(std::string(sym::not_a_symbol(0xFFFE)) == "a noncharacter");
  CHECK(std::string(sym::not_a_symbol(0xFFFD)) == "the replacement character");

  CHECK(sym::count_code_points("a\u00e1\U0001D49C") == 3);
  CHECK(sym::count_code_points("a" + bytes({0xFF, 0xC3})) == 3);
  const std::string w = "ab\u00e1\u4e2d";  // 2 + 2 + 3 bytes
  CHECK(sym::utf8_prefix(w, 100) == w);
  CHECK(sym::utf8_prefix(w, 4) == "ab\u00e1");
  CHECK(sym::utf8_prefix(w, 3) == "ab");
  CHECK(sym::utf8_prefix(w, 6) == "ab\u00e1");
  CHECK(sym::utf8_prefix(w, 7) == w);

  CHECK(sym::escape_invalid("ab\u00e1") == "ab\u00e1");
  CHECK(sym::escape_invalid(bytes({0xFF, 0xFE}) + "a" + bytes({0xC3})) == "\\xff\\xfea\\xc3");
  CHECK(sym::valid_utf8(sym::escape_invalid(bytes({0xE4, 0xB8, 0xC3, 0xA1}))));

  // Sorting by code point: the same order whatever codes were given out.
  const std::string z = sym::declare("\u017e");  // ž (U+017E), declared after ǎ (U+01CE) in other runs or not
  const std::string a = sym::declare("\u01ce");
  const sym::CodePointLess less;
  CHECK(less(z, a));
  CHECK_FALSE(less(a, z));
  CHECK(less("ab", "b"));
  CHECK(less("a", "a" + z));
  CHECK(less("z", z));  // ASCII before every other symbol
}
