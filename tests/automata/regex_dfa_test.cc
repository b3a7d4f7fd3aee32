// Regex -> minimal DFA: differential against RE2 FullMatch on every short
// word (random regexes covering every supported construct, random garbage
// patterns, a 64-letter alphabet with accents), minimal sizes worked by hand,
// every refused feature and syntax error with its byte offset, limits.
#include <catch2/catch.hpp>

#include <fmt/format.h>
#include <re2/re2.h>

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "automata/dfa.h"
#include "automata/regex_dfa.h"
#include "oracle/regex_oracle.h"
#include "util/error.h"
#include "util/interrupt.h"
#include "util/random.h"
#include "util/symbols.h"

using namespace softhat;
using automata::dfa_from_regex;
using automata::RegexError;

namespace {

// The DFA of `pattern` agrees with RE2 on every word up to the length that
// max_words allows; names the first disagreement.
void require_agrees(const std::string& pattern, const std::string& alphabet, std::size_t max_words) {
  INFO("pattern '" << pattern << "' over '" << sym::encode(alphabet) << "'");
  const automata::Dfa dfa = dfa_from_regex(pattern, alphabet);
  const oracle::RegexOracle re(pattern, "test");
  const auto bad = oracle::first_disagreement(dfa, re, max_words);
  INFO("first disagreement: '" << (bad ? sym::encode(*bad) : std::string("none")) << "'");
  REQUIRE_FALSE(bad.has_value());
}

// The error of a pattern dfa_from_regex refuses.
struct Refusal {
  std::size_t offset;
  std::string message;
};
std::optional<Refusal> refusal(const std::string& pattern, const std::string& alphabet) {
  try {
    dfa_from_regex(pattern, alphabet);
  } catch (const RegexError& e) {
    return Refusal{e.offset(), e.what()};
  }
  return std::nullopt;
}

bool re2_accepts_pattern(const std::string& pattern) {
  RE2::Options options;
  options.set_encoding(RE2::Options::EncodingUTF8);
  options.set_log_errors(false);
  options.set_max_mem(std::int64_t{512} << 20);
  options.set_dot_nl(true);
  const RE2 re(pattern, options);
  return re.ok();
}

// Random regexes over an alphabet, from every supported construct.
class RegexGen {
 public:
  RegexGen(std::mt19937_64& rng, const std::string& alphabet) : rng_(rng) {
    for (char c : alphabet) symbols_.push_back(sym::code_point(c));
  }
  std::set<std::string> used;  // the constructs generated

  std::string regex(int depth) { return alt(depth); }

 private:
  std::size_t pick(std::size_t n) { return static_cast<std::size_t>(uniform_int(rng_, 0, n - 1)); }
  bool chance(int percent) { return pick(100) < static_cast<std::size_t>(percent); }
  char32_t symbol() { return symbols_[pick(symbols_.size())]; }

  std::string literal() {
    const char32_t cp = symbol();
    const std::string text = sym::utf8(cp);
    switch (pick(8)) {
      case 0:
        used.insert("hex braces");
        return fmt::format("\\x{{{:X}}}", static_cast<unsigned>(cp));
      case 1:
        if (cp < 0x100) {
          used.insert("hex");
          return fmt::format("\\x{:02x}", static_cast<unsigned>(cp));
        }
        break;
      case 2:
        if (cp < 0x100) {
          used.insert("octal");
          return fmt::format("\\{:03o}", static_cast<unsigned>(cp));
        }
        break;
      default:
        break;
    }
    if (std::string_view("\\.+*?()|[]{}^$").find(text) != std::string_view::npos) {
      used.insert("escaped metacharacter");
      return "\\" + text;
    }
    used.insert(cp < 0x80 ? "literal" : "non-ASCII literal");
    return text;
  }

  std::string class_member_text(char32_t cp) {
    const std::string text = sym::utf8(cp);
    if (std::string_view("]\\^-[").find(text) != std::string_view::npos) return "\\" + text;
    return text;
  }

  std::string char_class() {
    std::string out = "[";
    if (chance(30)) {
      used.insert("negated class");
      out += '^';
    }
    const std::size_t items = 1 + pick(3);
    // Extra code points, outside the alphabet: a class means its intersection.
    static const char32_t extra[] = {'c', 'z', 'Z', U'é', U'ǔ', '0'};
    for (std::size_t i = 0; i < items; ++i) {
      switch (pick(6)) {
        case 0: {
          char32_t lo = chance(70) ? symbol() : extra[pick(6)];
          char32_t hi = chance(70) ? symbol() : extra[pick(6)];
          if (hi < lo) std::swap(lo, hi);
          used.insert("range");
          out += class_member_text(lo) + "-" + class_member_text(hi);
          break;
        }
        case 1: {
          static const char* perl[] = {"\\d", "\\w", "\\s", "\\D", "\\W", "\\S"};
          used.insert("perl class in class");
          out += perl[pick(6)];
          break;
        }
        case 2: {
          static const char* posix[] = {"[:alpha:]", "[:^alpha:]", "[:lower:]", "[:digit:]", "[:^word:]", "[:ascii:]"};
          used.insert("posix class");
          out += posix[pick(6)];
          break;
        }
        case 3:
          used.insert("class member outside the alphabet");
          out += class_member_text(extra[pick(6)]);
          break;
        default:
          used.insert("class member");
          out += class_member_text(symbol());
          break;
      }
    }
    return out + "]";
  }

  std::string atom(int depth) {
    const std::size_t choice = depth <= 0 ? pick(4) : pick(9);
    switch (choice) {
      case 0:
      case 1:
        return literal();
      case 2:
        return char_class();
      case 3:
        if (chance(50)) {
          used.insert("dot");
          return ".";
        } else {
          static const char* perl[] = {"\\d", "\\w", "\\s", "\\D", "\\W", "\\S"};
          used.insert("perl class");
          return perl[pick(6)];
        }
      case 4:
        used.insert("group");
        return "(" + alt(depth - 1) + ")";
      case 5:
        used.insert("non-capturing group");
        return "(?:" + alt(depth - 1) + ")";
      case 6:
        used.insert("named group");
        return fmt::format("(?P<g{}>", names_++) + alt(depth - 1) + ")";
      case 7:
        used.insert("empty group");
        return chance(50) ? "()" : "(?:)";
      default:
        return literal();
    }
  }

  std::string piece(int depth) {
    std::string a = atom(depth);
    if (!chance(45)) return a;
    static const char* ops[] = {"*", "+", "?", "*?", "+?", "??"};
    switch (pick(5)) {
      case 0:
      case 1: {
        const char* op = ops[pick(6)];
        used.insert(std::string("quantifier ") + op);
        return a + op;
      }
      case 2: {
        const std::size_t m = pick(4);
        used.insert("{m}");
        return a + fmt::format("{{{}}}", m);
      }
      case 3: {
        const std::size_t m = pick(3);
        used.insert("{m,}");
        return a + fmt::format("{{{},}}", m);
      }
      default: {
        const std::size_t m = pick(3);
        const std::size_t n = m + pick(3);
        const bool lazy = chance(30);
        used.insert(lazy ? "{m,n}?" : "{m,n}");
        return a + fmt::format("{{{},{}}}", m, n) + (lazy ? "?" : "");
      }
    }
  }

  std::string concat(int depth) {
    const std::size_t n = pick(4);
    if (n == 0) used.insert("empty concatenation");
    std::string out;
    for (std::size_t i = 0; i < n; ++i) out += piece(depth);
    return out;
  }

  std::string alt(int depth) {
    std::string out = concat(depth);
    if (chance(35)) {
      used.insert("alternation");
      const std::size_t n = 1 + pick(2);
      for (std::size_t i = 0; i < n; ++i) out += "|" + concat(depth);
    }
    return out;
  }

  std::mt19937_64& rng_;
  std::vector<char32_t> symbols_;
  int names_ = 0;
};

}  // namespace

TEST_CASE("regex dfa: minimal sizes, worked by hand", "[regex]") {
  struct Row {
    const char* pattern;
    const char* alphabet;
    std::size_t states;
  };
  const Row rows[] = {
      {"a*b*", "ab", 3},            // in a*, in b+, dead
      {"[ab]*ab[ab]*", "ab", 3},    // no progress, after a, found
      {"(ab)*", "ab", 3},           // even position, after a, dead
      {"", "ab", 2},                // the empty word alone: start, dead
      {"()", "ab", 2},
      {"(?:)", "ab", 2},
      {"a|", "ab", 3},              // empty or a: start, after a, dead
      {"|a|", "ab", 3},
      {"[ab]*", "ab", 1},
      {".*", "abc", 1},
      {"[^ab]*", "ab", 2},          // the complement within {a,b} is empty
      {"[^a]*", "ab", 2},           // b*
      {"[c-z]", "ab", 1},           // the intersection with the alphabet is empty
      {"a{3}", "ab", 5},            // 0, 1, 2, 3 a's, dead
      {"a{2,4}", "ab", 6},
      {"a{2,}", "ab", 4},
      {"a{0}", "ab", 2},
      {"[ab]*a[ab]{2}", "ab", 8},   // the last three symbols
      {"(a|b)*a(a|b)", "ab", 4},
      {"(aa)*", "a", 2},
      {"(aa)*", "ab", 3},
      {"(?:a*?b+?)??", "ab", 4},    // lazy: the same language as (a*b+)?
      {"\\d+", "0123456789ab", 3},
      {"\\D", "0a", 3},
      {"[[:alpha:]]+", "a1", 3},
      {"á*b", "aáb", 3},
      {"[à-ǔ]+", "aáb", 3},         // by code point: only á
  };
  for (const Row& r : rows) {
    INFO(r.pattern << " over " << r.alphabet);
    const std::string alphabet = sym::declare(r.alphabet);
    const automata::Dfa dfa = dfa_from_regex(r.pattern, alphabet);
    CHECK(dfa.states() == r.states);
    CHECK(automata::minimize(dfa).states() == dfa.states());
    CHECK(automata::minimize_moore(dfa).states() == dfa.states());
    require_agrees(r.pattern, alphabet, 5000);
  }
}

TEST_CASE("regex dfa: random regexes agree with RE2 on every short word", "[regex]") {
  struct Alphabet {
    std::string text;
    std::size_t max_words;  // every word up to length 12 (binary) or 7 (ternary)
  };
  const Alphabet alphabets[] = {{"ab", 8191}, {"abc", 3280}, {"aáb", 3280}, {"a.-", 3280}};
  std::set<std::string> used;
  int checked = 0, nontrivial = 0;
  std::size_t largest = 0;
  for (const Alphabet& a : alphabets) {
    const std::string alphabet = sym::declare(a.text);
    std::mt19937_64 rng = derived_rng(17, "regex-dfa-random", alphabet.size() * 7 + static_cast<std::uint8_t>(alphabet[1]));
    RegexGen gen(rng, alphabet);
    for (int t = 0; t < 250; ++t) {
      const std::string pattern = gen.regex(1 + t % 4);
      require_agrees(pattern, alphabet, a.max_words);
      // Minimal and canonical.
      const automata::Dfa dfa = dfa_from_regex(pattern, alphabet);
      const automata::Dfa again = automata::minimize(dfa);
      REQUIRE(again.states() == dfa.states());
      REQUIRE(again.transitions == dfa.transitions);
      REQUIRE(automata::minimize_moore(dfa).states() == dfa.states());
      nontrivial += dfa.states() >= 4;
      largest = std::max(largest, dfa.states());
      // Longer random words too.
      const oracle::RegexOracle re(pattern, "test");
      for (int w = 0; w < 10; ++w) {
        std::string word;
        const std::size_t n = 10 + uniform_int(rng, 0, 30);
        for (std::size_t i = 0; i < n; ++i) word += alphabet[uniform_int(rng, 0, alphabet.size() - 1)];
        INFO(pattern << " on " << sym::encode(word));
        REQUIRE(dfa.accepts(word) == re.accepts(word));
      }
      ++checked;
    }
    used.insert(gen.used.begin(), gen.used.end());
  }
  CHECK(checked == 1000);
  INFO(nontrivial << " DFAs with 4 or more states, the largest " << largest);
  CHECK(nontrivial >= 300);
  const char* constructs[] = {"literal", "non-ASCII literal", "escaped metacharacter", "hex braces", "hex", "octal",
                              "class member", "class member outside the alphabet", "negated class", "range",
                              "perl class in class", "posix class", "dot", "perl class", "group",
                              "non-capturing group", "named group", "empty group", "quantifier *", "quantifier +",
                              "quantifier ?", "quantifier *?", "quantifier +?", "quantifier ??", "{m}", "{m,}",
                              "{m,n}", "{m,n}?", "empty concatenation", "alternation"};
  for (const char* c : constructs) {
    INFO(c);
    CHECK(used.count(c) == 1);
  }
}

TEST_CASE("regex dfa: random garbage patterns are refused whenever RE2 refuses them", "[regex]") {
  // Patterns from RE2's metacharacters over an alphabet holding some of them:
  // whatever dfa_from_regex accepts RE2 accepts too, with the same language;
  // whatever RE2 refuses dfa_from_regex refuses (with an offset inside the pattern).
  const std::string alphabet = "ab{},0-";
  const char pieces[][6] = {"a", "b", "(", ")", "|", "*", "+", "?", ".", "[", "]", "^", "-", "{", "}", ",", "0",
                            "1", "2", "\\", "\\d", "\\x", "(?:", "(?P<", ">", ":", "[:", ":]", "\\-", "\\{", "{1,2}",
                            "{2}", "a{", "\\0", "\\1", "\\Q", "$", "(?i)", "\\pL", "é"};
  std::mt19937_64 rng = derived_rng(19, "regex-garbage");
  int accepted = 0, refused_by_both = 0, refused_by_us = 0;
  for (int t = 0; t < 10000; ++t) {
    std::string pattern;
    const std::size_t n = uniform_int(rng, 1, 7);
    for (std::size_t i = 0; i < n; ++i) pattern += pieces[uniform_int(rng, 0, std::size(pieces) - 1)];
    INFO("pattern '" << pattern << "'");
    const bool re2_ok = re2_accepts_pattern(pattern);
    const auto refused = refusal(pattern, alphabet);
    if (!refused) {
      REQUIRE(re2_ok);
      require_agrees(pattern, alphabet, 400);
      ++accepted;
    } else {
      REQUIRE(refused->offset <= pattern.size());
      REQUIRE(refused->message.find(fmt::format("at byte {}", refused->offset)) != std::string::npos);
      ++(re2_ok ? refused_by_us : refused_by_both);
    }
  }
  INFO(accepted << " accepted, " << refused_by_both << " refused by both, " << refused_by_us << " by softhat only");
  CHECK(accepted > 700);
  CHECK(refused_by_both > 4000);
}

TEST_CASE("regex dfa: refused features and syntax errors name the byte offset", "[regex]") {
  struct Row {
    const char* pattern;
    std::size_t offset;
    const char* message;
    bool re2_valid;  // RE2 accepts it (a feature softhat refuses) or not (a syntax error)
  };
  const Row rows[] = {
      // Features RE2 has and softhat refuses.
      {"a^b", 1, "the anchor '^' at byte 1 is not supported", true},
      {"ab$", 2, "the anchor '$' at byte 2 is not supported", true},
      {"\\Aab", 0, "the anchor '\\A' at byte 0 is not supported", true},
      {"ab\\z", 2, "the anchor '\\z' at byte 2 is not supported", true},
      {"a\\bb", 1, "the word boundary '\\b' at byte 1 is not supported", true},
      {"a\\B", 1, "the word boundary '\\B' at byte 1 is not supported", true},
      {"(?i)ab", 0, "flags '(?i)' at byte 0 are not supported", true},
      {"a(?s:.)", 1, "flags '(?s:' at byte 1 are not supported", true},
      {"(?-m)a", 0, "flags '(?-m)' at byte 0 are not supported", true},
      {"(?U)a*", 0, "flags '(?U)' at byte 0 are not supported", true},
      {"a\\pL", 1, "the Unicode class '\\pL' at byte 1 is not supported", true},
      {"\\p{Greek}", 0, "the Unicode class '\\p{Greek}' at byte 0 is not supported", true},
      {"[a\\P{Lu}]", 2, "the Unicode class '\\P{Lu}' at byte 2 is not supported", true},
      {"\\Qa.b\\E", 0, "'\\Q...\\E' at byte 0 is not supported", true},
      {"a\\C", 1, "'\\C' (any byte) at byte 1 is not supported", true},
      {"(?P<é>a)", 0, "capture group name 'é' at byte 0: only ASCII letters", true},
      // Syntax errors (RE2 refuses them too).
      {"a**", 2, "bad repetition operator '*' at byte 2", false},
      {"a*+", 2, "bad repetition operator '+' at byte 2", false},
      {"a{2}*", 4, "bad repetition operator '*' at byte 4", false},
      {"a*{2}", 2, "bad repetition operator '{2}' at byte 2", false},
      {"a*??", 3, "bad repetition operator '?' at byte 3", false},
      {"*a", 0, "missing argument to repetition operator '*' at byte 0", false},
      {"a|+", 2, "missing argument to repetition operator '+' at byte 2", false},
      {"(?:*)", 3, "missing argument to repetition operator '*' at byte 3", false},
      {"{2}", 0, "missing argument to repetition operator '{2}' at byte 0", false},
      {"a{1001}", 1, "RE2 allows counts up to 1000", false},
      {"a{2,1}", 1, "the maximum is below the minimum", false},
      {"(a{40}){30}", 7, "nested counted repetitions make more than 1000 copies", false},
      {"((a{2}){2}){251}", 11, "nested counted repetitions", false},
      {"a)", 1, "unexpected ')' at byte 1", false},
      {"(a", 2, "missing ')' at byte 2 (the end of the pattern) to close the '(' at byte 0", false},
      {"a[ab", 4, "missing ']' at byte 4 (the end of the pattern) to close the class at byte 1", false},
      {"[]", 2, "missing ']' at byte 2", false},
      {"[b-a]", 1, "bad character class range 'b-a' at byte 1", false},
      {"[b-\x01]", 1, "bad character class range 'b-\\x01' at byte 1", false},  // controls shown as \xHH
      {"(?P<\xff>a)", 0, "capture group name '\\xff' at byte 0", false},        // so is invalid UTF-8
      {"[[:foo:]]", 1, "invalid character class name '[:foo:]' at byte 1", false},
      {"a\\", 1, "trailing backslash at byte 1", false},
      {"\\q", 0, "invalid escape sequence '\\q' at byte 0", false},
      {"\\8", 0, "invalid escape sequence '\\8' at byte 0", false},
      {"a\\1", 1, "the backreference '\\1' at byte 1 is not supported", false},
      {"\\xg0", 0, "invalid escape sequence '\\xg0' at byte 0", false},
      {"\\x{110000}", 0, "invalid escape sequence", false},
      {"\\x{}", 0, "invalid escape sequence '\\x{}' at byte 0", false},
      {"\\x{İ}", 0, "invalid escape sequence '\\x{İ' at byte 0", false},  // U+0130: its low byte is '0'
      {"\\x{41", 0, "invalid escape sequence '\\x{41' at byte 0", false},
      {"[\\b]", 1, "invalid escape sequence '\\b' at byte 1", false},
      {"(?P<n>a)(?P<n>b)", 8, "duplicate capture group name 'n' at byte 8", true},
      {"(?P<>a)", 0, "invalid named capture group at byte 0: the name is empty", false},
      {"(?P<a", 0, "invalid named capture group at byte 0: no '>' ends the name", false},
      {"(?P=a)", 0, "invalid or unsupported Perl syntax '(?P' at byte 0", false},
      {"(?=a)", 0, "unsupported group syntax '(?=' at byte 0", false},
      {"(?<n>a)", 0, "unsupported group syntax '(?<' at byte 0", false},
      {"(?i", 0, "invalid or unsupported Perl syntax '(?i' at byte 0", false},
      {"a\xff", 1, "invalid UTF-8 at byte 1", false},
  };
  const std::string alphabet = "ab";
  for (const Row& r : rows) {
    INFO(r.pattern);
    const auto refused = refusal(r.pattern, alphabet);
    REQUIRE(refused.has_value());
    CHECK(refused->offset == r.offset);
    CHECK_THAT(refused->message, Catch::Contains(r.message));
    // (The installed RE2 accepts duplicate names; newer ones refuse them.)
    if (std::string_view(r.pattern) != "(?P<n>a)(?P<n>b)") CHECK(re2_accepts_pattern(r.pattern) == r.re2_valid);
  }
  // Nesting beyond 1000 groups is refused before any recursion goes deep.
  const std::string deep = std::string(1001, '(') + "a" + std::string(1001, ')');
  const auto refused = refusal(deep, alphabet);
  REQUIRE(refused.has_value());
  CHECK(refused->offset == 1000);
  CHECK(refused->message == "groups nest more than 1000 deep at byte 1000");
  const std::string ok = std::string(1000, '(') + "a" + std::string(1000, ')');
  CHECK(dfa_from_regex(ok, alphabet).states() == 3);
  // Literal-looking text that RE2 reads as literals.
  require_agrees("a{,2}b", sym::declare("ab{},2"), 2000);
  require_agrees("a{01}", sym::declare("a{}01"), 2000);
  require_agrees("[]a]", sym::declare("a]"), 100);
  require_agrees("[a-]", sym::declare("a-"), 100);
  require_agrees("[[:]]", sym::declare("[:]"), 100);
  require_agrees("\\_\\-\\ ", sym::declare("_- "), 100);
}

TEST_CASE("regex dfa: a literal outside the alphabet is an error, a class is its intersection", "[regex]") {
  const std::string ab = "ab";
  CHECK_THROWS_WITH(dfa_from_regex("ab|c", ab), "the regex uses 'c' at byte 3, which is not in the alphabet {a,b}");
  CHECK_THROWS_AS(dfa_from_regex("ab|c", ab), RegexError);
  CHECK_THROWS_WITH(dfa_from_regex("a\\.", ab), "the regex uses '.' at byte 1, which is not in the alphabet {a,b}");
  CHECK_THROWS_WITH(dfa_from_regex("\\x63", ab), "the regex uses 'c' at byte 0, which is not in the alphabet {a,b}");
  CHECK_THROWS_WITH(dfa_from_regex("a\\n", ab), "the regex uses '\\x0a' at byte 1, which is not in the alphabet {a,b}");
  // A code point no alphabet declares, and one declared by another alphabet.
  CHECK_THROWS_WITH(dfa_from_regex("aǖ", ab), "the regex uses 'ǖ' at byte 1, which is not in the alphabet {a,b}");
  const std::string aab = sym::declare("aáb");
  sym::declare("é");
  CHECK_THROWS_WITH(dfa_from_regex("áé", aab), "the regex uses 'é' at byte 2, which is not in the alphabet {a,á,b}");
  // Classes, ranges, negated classes and '.' mean their intersection with the alphabet.
  CHECK(dfa_from_regex("[a-z]*", ab).transitions == dfa_from_regex("[ab]*", ab).transitions);
  CHECK(dfa_from_regex("[^c]*", ab).transitions == dfa_from_regex(".*", ab).transitions);
  CHECK(dfa_from_regex("[cé]", ab).states() == 1);  // the empty language
  CHECK(dfa_from_regex("a|[c]", ab).transitions == dfa_from_regex("a", ab).transitions);
  CHECK(dfa_from_regex("\\w\\W", sym::declare("a-")).transitions == dfa_from_regex("a-", sym::declare("a-")).transitions);
  // A duplicate symbol in the alphabet is an input error.
  CHECK_THROWS_AS(dfa_from_regex("a", "aba"), InputError);
}

TEST_CASE("regex dfa: limits are clear errors, the construction stops on an interrupt", "[regex]") {
  CHECK_THROWS_WITH(dfa_from_regex("[ab]*a[ab]{20}", "ab", 1000), "the regex's DFA exceeds 1000 states");
  CHECK_THROWS_AS(dfa_from_regex("[ab]*a[ab]{20}", "ab", 1000), automata::LimitError);
  CHECK_THROWS_WITH(dfa_from_regex("a{1000}", "ab", 500), "the regex's NFA exceeds 500 states");
  CHECK(dfa_from_regex("a{1000}", "ab", 2000).states() == 1002);
  // Under the default limit a large counted repetition is fine.
  CHECK(dfa_from_regex("[ab]*a[ab]{9}", "ab").states() == 1024);
  set_interrupted(true);
  CHECK_THROWS_AS(dfa_from_regex("[ab]*a[ab]{5}", "ab"), Interrupted);
  set_interrupted(false);
}

TEST_CASE("regex dfa: MLRegTest's 64-letter alphabet with accented vowels", "[regex]") {
  std::string letters;
  for (char c = 'a'; c <= 'z'; ++c) letters += c;
  for (char c = 'A'; c <= 'Z'; ++c) letters += c;
  letters += "áàǎéèěóòǒúùǔ";
  const std::string alphabet = sym::declare(letters);
  REQUIRE(alphabet.size() == 64);
  const char* patterns[] = {
      "[aá]*",         ".*é.*",          "[^é]*",         "[à-ǔ]+",         "(ǎ|ě|ǒ|ǔ)*x",
      "\\x{11B}.",     "[[:alpha:]]*ú",  "\\w*[^\\w]",    "(?:ab|ò){2,3}",  "[A-Zá-é]+[a-z]?",
      ".*à.{2}",       "[^aeiouáàǎéèěóòǒúùǔ]*",            "(?P<v>[áéó])\\x{e0}*",
  };
  std::mt19937_64 rng = derived_rng(23, "mlregtest");
  for (const char* p : patterns) {
    INFO(p);
    require_agrees(p, alphabet, 4161);  // every word up to length 2
    const automata::Dfa dfa = dfa_from_regex(p, alphabet);
    const oracle::RegexOracle re(p, "test");
    for (int w = 0; w < 300; ++w) {
      // Words mostly from a few letters, so that the patterns' structure shows.
      std::string word;
      const std::string few = sym::declare("aábxéAàǔú");
      const std::size_t n = uniform_int(rng, 0, 8);
      for (std::size_t i = 0; i < n; ++i) {
        word += w % 2 ? few[uniform_int(rng, 0, few.size() - 1)] : alphabet[uniform_int(rng, 0, 63)];
      }
      INFO(sym::encode(word));
      REQUIRE(dfa.accepts(word) == re.accepts(word));
    }
    CHECK(automata::minimize(dfa).states() == dfa.states());
  }
  CHECK(dfa_from_regex("[à-ǔ]", alphabet).states() == 3);
  CHECK(dfa_from_regex("[^à-ǔ]*", alphabet).states() == 2);
}

TEST_CASE("regex dfa: first_disagreement finds the shortest, then first, differing word", "[regex]") {
  const std::string ab = "ab";
  const oracle::RegexOracle star_b("a*b?", "t");
  CHECK(oracle::first_disagreement(dfa_from_regex("a*", ab), star_b) == std::optional<std::string>("b"));
  const oracle::RegexOracle one("b|aa", "t");
  CHECK(oracle::first_disagreement(dfa_from_regex("[ab]", ab), one) == std::optional<std::string>("a"));
  CHECK_FALSE(oracle::first_disagreement(dfa_from_regex("(a|b)*", ab), oracle::RegexOracle("[ab]*", "t")));
  // The length bound: 1 + 2 + 4 = 7 words reach length 2; a difference at length 3 needs 15.
  const oracle::RegexOracle three(".{0,3}", "t");
  const automata::Dfa upto2 = dfa_from_regex(".?.?", ab);
  CHECK_FALSE(oracle::first_disagreement(upto2, three, 7));
  CHECK_FALSE(oracle::first_disagreement(upto2, three, 14));
  CHECK(oracle::first_disagreement(upto2, three, 15) == std::optional<std::string>("aaa"));
  // At least length 1, even for a tiny budget.
  CHECK(oracle::first_disagreement(dfa_from_regex("b", ab), oracle::RegexOracle("a", "t"), 1) ==
        std::optional<std::string>("a"));
  // Unary alphabet: lengths up to max_words - 1.
  CHECK(oracle::first_disagreement(dfa_from_regex("a{0,3}", "a"), oracle::RegexOracle("a*", "t"), 5) ==
        std::optional<std::string>("aaaa"));
  CHECK_FALSE(oracle::first_disagreement(dfa_from_regex("a{0,3}", "a"), oracle::RegexOracle("a*", "t"), 4));
  // Non-ASCII words go to RE2 as UTF-8.
  const std::string aab = sym::declare("aáb");
  const oracle::RegexOracle acute("[á]+b", "t");
  CHECK(acute.accepts(sym::declare("áb")));
  CHECK_FALSE(acute.accepts("ab"));
  CHECK_FALSE(oracle::first_disagreement(dfa_from_regex(".b", aab), oracle::RegexOracle("[aá]b", "t")) ==
              std::nullopt);
  CHECK(oracle::first_disagreement(dfa_from_regex(".b", aab), oracle::RegexOracle("[aá]b", "t")) ==
        std::optional<std::string>("bb"));
}
