#include "automata/regex_dfa.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <set>
#include <unordered_map>
#include <utility>
#include <vector>

#include "util/interrupt.h"
#include "util/symbols.h"

namespace softhat::automata {

namespace {

constexpr char32_t kMaxCodePoint = 0x10FFFF;

// ---------------------------------------------------------------------------
// Syntax tree. A character class is already a set of alphabet indices.

using Bits = std::array<std::uint64_t, 4>;  // over alphabet indices (<= 256 symbols)

enum class Kind { kEmpty, kClass, kConcat, kAlt, kStar, kPlus, kQuest, kRepeat };

struct Node {
  Kind kind = Kind::kEmpty;
  std::vector<int> kids;
  int cls = -1;           // kClass: index into Tree::classes
  int min = 0, max = 0;   // kRepeat: max -1 is unbounded
  // Derived when the node is made:
  bool nullable = false;  // the empty word is in the language
  bool nonempty = false;  // some word of length >= 1 is
  int copies = 1;         // largest product of counted-repetition factors on a path down (capped)
};

struct Tree {
  std::vector<Node> nodes;
  std::vector<Bits> classes;
};

using Range = std::pair<char32_t, char32_t>;

// RE2's ASCII Perl and POSIX classes (re2/perl_groups.cc).
struct Group {
  const char* name;
  std::vector<Range> ranges;
};
const std::vector<Group>& perl_groups() {
  static const std::vector<Group> groups = {
      {"d", {{'0', '9'}}},
      {"s", {{'\t', '\n'}, {'\f', '\r'}, {' ', ' '}}},
      {"w", {{'0', '9'}, {'A', 'Z'}, {'_', '_'}, {'a', 'z'}}},
  };
  return groups;
}
const std::vector<Group>& posix_groups() {
  static const std::vector<Group> groups = {
      {"alnum", {{'0', '9'}, {'A', 'Z'}, {'a', 'z'}}},
      {"alpha", {{'A', 'Z'}, {'a', 'z'}}},
      {"ascii", {{0, 0x7F}}},
      {"blank", {{'\t', '\t'}, {' ', ' '}}},
      {"cntrl", {{0, 0x1F}, {0x7F, 0x7F}}},
      {"digit", {{'0', '9'}}},
      {"graph", {{0x21, 0x7E}}},
      {"lower", {{'a', 'z'}}},
      {"print", {{0x20, 0x7E}}},
      {"punct", {{0x21, 0x2F}, {0x3A, 0x40}, {0x5B, 0x60}, {0x7B, 0x7E}}},
      {"space", {{'\t', '\r'}, {' ', ' '}}},
      {"upper", {{'A', 'Z'}}},
      {"word", {{'0', '9'}, {'A', 'Z'}, {'_', '_'}, {'a', 'z'}}},
      {"xdigit", {{'0', '9'}, {'A', 'F'}, {'a', 'f'}}},
  };
  return groups;
}

// Adds a group (sign +1) or its complement over all code points (sign -1).
void add_group(std::vector<Range>& out, const std::vector<Range>& ranges, bool negated) {
  if (!negated) {
    out.insert(out.end(), ranges.begin(), ranges.end());
    return;
  }
  char32_t next = 0;
  for (const Range& r : ranges) {  // the tables are sorted and disjoint
    if (next < r.first) out.emplace_back(next, r.first - 1);
    next = r.second + 1;
  }
  if (next <= kMaxCodePoint) out.emplace_back(next, kMaxCodePoint);
}

std::string show_code_point(char32_t cp) {
  if (cp < 0x20 || cp == 0x7F) return fmt::format("'\\x{:02x}'", static_cast<unsigned>(cp));
  return "'" + sym::utf8(cp) + "'";
}

std::string alphabet_text(const std::string& alphabet) {
  std::string out = "{";
  for (std::size_t i = 0; i < alphabet.size(); ++i) {
    if (i) out += ',';
    out += sym::encode(alphabet[i]);
  }
  return out + "}";
}

std::string printable(std::string_view text) {
  std::string out;
  for (std::size_t pos = 0; pos < text.size();) {
    const auto d = sym::decode_one(text, pos);
    if (d && d->code_point >= 0x20 && d->code_point != 0x7F) {
      out += text.substr(pos, d->length);
      pos += d->length;
    } else {
      out += fmt::format("\\x{:02x}", static_cast<unsigned char>(text[pos]));
      ++pos;
    }
  }
  return out;
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_alpha(char32_t c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool is_hex(char32_t c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
int hex_value(char32_t c) {
  if (c >= '0' && c <= '9') return static_cast<int>(c - '0');
  if (c >= 'a' && c <= 'f') return static_cast<int>(c - 'a' + 10);
  return static_cast<int>(c - 'A' + 10);
}

// ---------------------------------------------------------------------------
// The parser: recursive descent that accepts and refuses as RE2's parser
// (re2/parse.cc, Perl-like flags, UTF-8) does for the supported subset, and
// refuses the rest by name.

class Parser {
 public:
  Parser(std::string_view pattern, const std::string& alphabet, Tree& tree)
      : p_(pattern), alphabet_(alphabet), tree_(tree) {
    for (std::size_t i = 0; i < alphabet.size(); ++i) code_points_.push_back(sym::code_point(alphabet[i]));
  }

  int parse() {
    const int root = parse_alt(0);
    if (pos_ < p_.size()) {  // only ')' stops an alternation early
      fail(pos_, fmt::format("unexpected ')' at byte {}: no '(' is open", pos_));
    }
    return root;
  }

 private:
  // (Pattern text quoted in a message may hold control characters or invalid
  // UTF-8: those bytes are shown as \xHH, so the message stays one line of text.)
  [[noreturn]] void fail(std::size_t offset, const std::string& message) const {
    throw RegexError(offset, printable(message));
  }

  bool at(char c) const { return pos_ < p_.size() && p_[pos_] == c; }
  bool at(std::size_t i, char c) const { return i < p_.size() && p_[i] == c; }

  // The code point at `pos` (its length in `length`), refusing invalid UTF-8.
  char32_t code_point_at(std::size_t pos, std::size_t* length) const {
    auto d = sym::decode_one(p_, pos);
    if (!d) fail(pos, fmt::format("invalid UTF-8 at byte {}", pos));
    *length = d->length;
    return d->code_point;
  }

  // --- nodes
  int add(Node node) {
    switch (node.kind) {
      case Kind::kEmpty:
        node.nullable = true;
        break;
      case Kind::kClass: {
        const Bits& b = tree_.classes[static_cast<std::size_t>(node.cls)];
        node.nonempty = (b[0] | b[1] | b[2] | b[3]) != 0;
        break;
      }
      case Kind::kConcat: {
        bool all_nullable = true, none_void = true, some_nonempty = false;
        for (int k : node.kids) {
          const Node& kid = tree_.nodes[static_cast<std::size_t>(k)];
          all_nullable = all_nullable && kid.nullable;
          none_void = none_void && (kid.nullable || kid.nonempty);
          some_nonempty = some_nonempty || kid.nonempty;
          node.copies = std::max(node.copies, kid.copies);
        }
        node.nullable = all_nullable;
        node.nonempty = none_void && some_nonempty;
        // Parts whose language is {ε} need no compiling (work stays
        // proportional to the NFA, even under counted repetition).
        std::erase_if(node.kids, [&](int k) { return is_epsilon(k); });
        break;
      }
      case Kind::kAlt:
        for (int k : node.kids) {
          const Node& kid = tree_.nodes[static_cast<std::size_t>(k)];
          node.nullable = node.nullable || kid.nullable;
          node.nonempty = node.nonempty || kid.nonempty;
          node.copies = std::max(node.copies, kid.copies);
        }
        {  // Drop alternatives with the empty language, and all but one with {ε}.
          bool epsilon_kept = false;
          std::erase_if(node.kids, [&](int k) {
            const Node& kid = tree_.nodes[static_cast<std::size_t>(k)];
            if (kid.nonempty) return false;
            if (!kid.nullable || epsilon_kept) return true;
            epsilon_kept = true;
            return false;
          });
        }
        break;
      case Kind::kStar:
      case Kind::kQuest:
      case Kind::kPlus: {
        const Node& kid = tree_.nodes[static_cast<std::size_t>(node.kids[0])];
        node.nullable = node.kind != Kind::kPlus || kid.nullable;
        node.nonempty = kid.nonempty;
        node.copies = kid.copies;
        break;
      }
      case Kind::kRepeat: {
        const Node& kid = tree_.nodes[static_cast<std::size_t>(node.kids[0])];
        node.nullable = node.min == 0 || kid.nullable;
        node.nonempty = node.max != 0 && kid.nonempty;
        // RE2's RepetitionWalker: the factor is max (min when unbounded), 0 counts as 1.
        const int factor = std::max(node.max < 0 ? node.min : node.max, 1);
        node.copies = static_cast<int>(std::min<long>(static_cast<long>(kid.copies) * factor, kRegexMaxRepeat + 1));
        break;
      }
    }
    tree_.nodes.push_back(std::move(node));
    return static_cast<int>(tree_.nodes.size() - 1);
  }

  bool is_epsilon(int k) const {
    const Node& n = tree_.nodes[static_cast<std::size_t>(k)];
    return n.nullable && !n.nonempty;
  }

  int add_class(const std::vector<Range>& ranges, bool negated) {
    Bits bits{};
    for (std::size_t i = 0; i < code_points_.size(); ++i) {
      bool in = false;
      for (const Range& r : ranges) in = in || (r.first <= code_points_[i] && code_points_[i] <= r.second);
      if (in != negated) bits[i / 64] |= std::uint64_t{1} << (i % 64);
    }
    tree_.classes.push_back(bits);
    Node n;
    n.kind = Kind::kClass;
    n.cls = static_cast<int>(tree_.classes.size() - 1);
    return add(std::move(n));
  }

  // A bare literal: it must be a symbol of the alphabet.
  int add_literal(char32_t cp, std::size_t offset) {
    const std::optional<char> code = sym::find(cp);
    const std::size_t index = code ? alphabet_.find(*code) : std::string::npos;
    if (cp == 0 || index == std::string::npos) {
      fail(offset, fmt::format("the regex uses {} at byte {}, which is not in the alphabet {}", show_code_point(cp),
                               offset, alphabet_text(alphabet_)));
    }
    return add_class({{cp, cp}}, false);
  }

  int unary(Kind kind, int kid) {
    Node n;
    n.kind = kind;
    n.kids = {kid};
    return add(std::move(n));
  }

  // --- grammar
  int parse_alt(std::size_t depth) {
    std::vector<int> alts{parse_concat(depth)};
    while (at('|')) {
      ++pos_;
      alts.push_back(parse_concat(depth));
    }
    if (alts.size() == 1) return alts[0];
    Node n;
    n.kind = Kind::kAlt;
    n.kids = std::move(alts);
    return add(std::move(n));
  }

  int parse_concat(std::size_t depth) {
    std::vector<int> items;
    constexpr std::size_t kNone = std::string_view::npos;
    std::size_t last_quantifier = kNone;  // offset of the quantifier just read (RE2's lastunary)
    while (pos_ < p_.size() && p_[pos_] != '|' && p_[pos_] != ')') {
      const std::size_t start = pos_;
      const char c = p_[pos_];
      if (c == '*' || c == '+' || c == '?') {
        ++pos_;
        if (at('?')) ++pos_;  // lazy: the same language under full match
        const std::string op(p_.substr(start, pos_ - start));
        if (last_quantifier != kNone) {
          fail(start, fmt::format("bad repetition operator '{}' at byte {}: it follows the repetition operator at "
                                  "byte {} (RE2 does not allow stacking them; write (?:...){})",
                                  op, start, last_quantifier, op));
        }
        if (items.empty()) {
          fail(start, fmt::format("missing argument to repetition operator '{}' at byte {}", op, start));
        }
        items.back() = unary(c == '*' ? Kind::kStar : c == '+' ? Kind::kPlus : Kind::kQuest, items.back());
        last_quantifier = start;
        continue;
      }
      if (c == '{') {
        int lo = 0, hi = 0;
        std::size_t end = pos_;
        if (maybe_repetition(&end, &lo, &hi)) {
          pos_ = end;
          if (at('?')) ++pos_;
          const std::string op(p_.substr(start, pos_ - start));
          if (last_quantifier != kNone) {
            fail(start, fmt::format("bad repetition operator '{}' at byte {}: it follows the repetition operator at "
                                    "byte {} (RE2 does not allow stacking them; write (?:...){})",
                                    op, start, last_quantifier, op));
          }
          if ((hi != -1 && hi < lo) || lo > kRegexMaxRepeat || hi > kRegexMaxRepeat) {
            fail(start, hi != -1 && hi < lo
                            ? fmt::format("bad repetition operator '{}' at byte {}: the maximum is below the minimum",
                                          op, start)
                            : fmt::format("bad repetition operator '{}' at byte {}: RE2 allows counts up to {}", op,
                                          start, kRegexMaxRepeat));
          }
          if (items.empty()) {
            fail(start, fmt::format("missing argument to repetition operator '{}' at byte {}", op, start));
          }
          Node n;
          n.kind = Kind::kRepeat;
          n.kids = {items.back()};
          n.min = lo;
          n.max = hi;
          items.back() = add(std::move(n));
          if ((lo >= 2 || hi >= 2) && tree_.nodes[static_cast<std::size_t>(items.back())].copies > kRegexMaxRepeat) {
            fail(start, fmt::format("bad repetition operator '{}' at byte {}: nested counted repetitions make more "
                                    "than {} copies (RE2's limit)",
                                    op, start, kRegexMaxRepeat));
          }
          last_quantifier = start;
          continue;
        }
        // Not a repetition: '{' is a literal (as in RE2).
      }
      items.push_back(parse_atom(depth));
      last_quantifier = kNone;
    }
    if (items.empty()) return add(Node{});
    if (items.size() == 1) return items[0];
    Node n;
    n.kind = Kind::kConcat;
    n.kids = std::move(items);
    return add(std::move(n));
  }

  // RE2's ParseInteger: digits without a leading zero, refusing 10 or more digits.
  bool parse_integer(std::size_t* pos, int* value) const {
    std::size_t i = *pos;
    if (i >= p_.size() || !is_digit(p_[i])) return false;
    if (i + 1 < p_.size() && p_[i] == '0' && is_digit(p_[i + 1])) return false;
    int n = 0;
    while (i < p_.size() && is_digit(p_[i])) {
      if (n >= 100000000) return false;
      n = n * 10 + (p_[i] - '0');
      ++i;
    }
    *pos = i;
    *value = n;
    return true;
  }

  // RE2's MaybeParseRepetition: {n}, {n,} or {n,m}; anything else is not one.
  bool maybe_repetition(std::size_t* pos, int* lo, int* hi) const {
    std::size_t i = *pos;
    if (!at(i, '{')) return false;
    ++i;
    if (!parse_integer(&i, lo)) return false;
    if (i >= p_.size()) return false;
    if (p_[i] == ',') {
      ++i;
      if (i >= p_.size()) return false;
      if (p_[i] == '}') {
        *hi = -1;
      } else if (!parse_integer(&i, hi)) {
        return false;
      }
    } else {
      *hi = *lo;
    }
    if (!at(i, '}')) return false;
    *pos = i + 1;
    return true;
  }

  int parse_atom(std::size_t depth) {
    const std::size_t start = pos_;
    const char c = p_[pos_];
    switch (c) {
      case '(':
        return parse_group(depth);
      case '[':
        return parse_class();
      case '.':
        ++pos_;
        return add_class({}, true);
      case '^':
      case '$':
        fail(start, fmt::format("the anchor '{}' at byte {} is not supported (the regex always matches the whole "
                                "word; leave it out)",
                                c, start));
      case '\\':
        return parse_backslash();
      default: {
        std::size_t length = 0;
        const char32_t cp = code_point_at(pos_, &length);
        pos_ += length;
        return add_literal(cp, start);
      }
    }
  }

  int parse_group(std::size_t depth) {
    const std::size_t start = pos_;
    if (depth + 1 > kRegexMaxDepth) {
      fail(start, fmt::format("groups nest more than {} deep at byte {}", kRegexMaxDepth, start));
    }
    ++pos_;  // '('
    if (at('?')) {
      ++pos_;
      if (at(':')) {
        ++pos_;
      } else if (at('P') && at(pos_ + 1, '<') && pos_ + 2 < p_.size()) {
        const std::size_t name_start = pos_ + 2;
        const std::size_t end = p_.find('>', name_start);
        if (end == std::string_view::npos) {
          fail(start, fmt::format("invalid named capture group at byte {}: no '>' ends the name", start));
        }
        const std::string_view name = p_.substr(name_start, end - name_start);
        if (name.empty()) fail(start, fmt::format("invalid named capture group at byte {}: the name is empty", start));
        for (char n : name) {
          const bool ok = is_alpha(static_cast<unsigned char>(n)) || is_digit(n) || n == '_';
          if (!ok) {
            fail(start, fmt::format("capture group name '{}' at byte {}: only ASCII letters, digits and '_' are "
                                    "supported",
                                    name, start));
          }
        }
        if (!names_.emplace(name).second) {
          fail(start, fmt::format("duplicate capture group name '{}' at byte {}", name, start));
        }
        pos_ = end + 1;
      } else {
        refuse_perl_group(start);
      }
    }
    const int inner = parse_alt(depth + 1);
    if (!at(')')) {
      fail(pos_, fmt::format("missing ')' at byte {} (the end of the pattern) to close the '(' at byte {}", pos_,
                             start));
    }
    ++pos_;
    return inner;
  }

  // "(?" that is neither "(?:" nor "(?P<name>": flags, which softhat
  // refuses, or syntax RE2 refuses as well.
  [[noreturn]] void refuse_perl_group(std::size_t start) const {
    std::size_t i = start + 2;
    bool negated = false, flags = false, well_formed = false;
    while (i < p_.size()) {
      const char c = p_[i++];
      if (c == 'i' || c == 'm' || c == 's' || c == 'U') {
        flags = true;
      } else if (c == '-' && !negated) {
        negated = true;
        flags = false;
      } else {
        well_formed = (c == ':' || c == ')') && !(negated && !flags);
        break;
      }
    }
    const std::string text(p_.substr(start, i - start));
    if (well_formed) {
      fail(start, fmt::format("flags '{}' at byte {} are not supported (no (?i), (?s), (?m), (?U))", text, start));
    }
    if (at(start + 2, '<') || at(start + 2, '=') || at(start + 2, '!')) {
      fail(start, fmt::format("unsupported group syntax '{}' at byte {} (named groups are written (?P<name>...); "
                              "there is no lookaround)",
                              text, start));
    }
    fail(start, fmt::format("invalid or unsupported Perl syntax '{}' at byte {}", text, start));
  }

  int parse_backslash() {
    const std::size_t start = pos_;
    if (pos_ + 1 >= p_.size()) fail(start, fmt::format("trailing backslash at byte {}", start));
    const char c = p_[pos_ + 1];
    switch (c) {
      case 'b':
      case 'B':
        fail(start, fmt::format("the word boundary '\\{}' at byte {} is not supported", c, start));
      case 'A':
      case 'z':
        fail(start, fmt::format("the anchor '\\{}' at byte {} is not supported (the regex always matches the whole "
                                "word; leave it out)",
                                c, start));
      case 'C':
        fail(start, fmt::format("'\\C' (any byte) at byte {} is not supported", start));
      case 'Q':
        fail(start, fmt::format("'\\Q...\\E' at byte {} is not supported (escape each metacharacter instead)", start));
      case 'p':
      case 'P':
        fail(start, fmt::format("the Unicode class '{}' at byte {} is not supported (use a class such as [áéí])",
                                unicode_class_text(start), start));
      default:
        break;
    }
    if (auto group = perl_class(pos_)) {
      pos_ += 2;
      std::vector<Range> ranges;
      add_group(ranges, group->first->ranges, group->second);
      return add_class(ranges, false);
    }
    const char32_t cp = parse_escape();
    return add_literal(cp, start);
  }

  std::string unicode_class_text(std::size_t start) const {
    std::size_t end = start + 2;
    if (at(end, '{')) {
      const std::size_t close = p_.find('}', end);
      end = close == std::string_view::npos ? p_.size() : close + 1;
    } else if (end < p_.size()) {
      auto d = sym::decode_one(p_, end);
      end += d ? d->length : 1;
    }
    return std::string(p_.substr(start, end - start));
  }

  // \d \D \s \S \w \W at pos: the group and whether it is negated.
  std::optional<std::pair<const Group*, bool>> perl_class(std::size_t pos) const {
    if (!at(pos, '\\') || pos + 1 >= p_.size()) return std::nullopt;
    const char c = p_[pos + 1];
    const char lower = static_cast<char>(c | 0x20);
    for (const Group& g : perl_groups()) {
      if (g.name[0] == lower && (c == lower || c == static_cast<char>(lower - 0x20))) {
        return std::make_pair(&g, c != lower);
      }
    }
    return std::nullopt;
  }

  // RE2's ParseEscape at pos_ (a backslash): the code point it denotes.
  char32_t parse_escape() {
    const std::size_t start = pos_;
    if (pos_ + 1 >= p_.size()) fail(start, fmt::format("trailing backslash at byte {}", start));
    ++pos_;
    std::size_t length = 0;
    char32_t c = code_point_at(pos_, &length);
    pos_ += length;
    auto bad = [&]() {
      fail(start, fmt::format("invalid escape sequence '{}' at byte {}", p_.substr(start, pos_ - start), start));
    };
    if (c < 0x80 && !is_alpha(c) && !is_digit(static_cast<char>(c))) return c;  // \. \* \\ \- \_ ...
    switch (c) {
      case '1': case '2': case '3': case '4': case '5': case '6': case '7':
        if (pos_ >= p_.size() || p_[pos_] < '0' || p_[pos_] > '7') {
          fail(start, fmt::format("the backreference '{}' at byte {} is not supported (RE2 has none)",
                                  p_.substr(start, pos_ - start), start));
        }
        [[fallthrough]];
      case '0': {
        char32_t code = c - '0';
        for (int k = 0; k < 2 && pos_ < p_.size() && p_[pos_] >= '0' && p_[pos_] <= '7'; ++k) {
          code = code * 8 + static_cast<char32_t>(p_[pos_++] - '0');
        }
        return code;
      }
      case 'x': {
        if (pos_ >= p_.size()) bad();
        c = code_point_at(pos_, &length);
        pos_ += length;
        if (c == '{') {
          char32_t code = 0;
          int digits = 0;
          for (;;) {
            if (pos_ >= p_.size()) bad();
            c = code_point_at(pos_, &length);
            pos_ += length;
            if (!is_hex(c)) break;
            ++digits;
            code = code * 16 + static_cast<char32_t>(hex_value(c));
            if (code > kMaxCodePoint) bad();
          }
          if (c != '}' || digits == 0) bad();
          return code;
        }
        if (pos_ >= p_.size()) bad();
        const char32_t c1 = code_point_at(pos_, &length);
        pos_ += length;
        if (!is_hex(c) || !is_hex(c1)) bad();
        return static_cast<char32_t>(hex_value(c) * 16 + hex_value(c1));
      }
      case 'n': return '\n';
      case 'r': return '\r';
      case 't': return '\t';
      case 'a': return '\a';
      case 'f': return '\f';
      case 'v': return '\v';
      default:
        bad();
    }
    return 0;  // not reached
  }

  // RE2's ParseCharClass at pos_ ('['); the class intersected with the alphabet.
  int parse_class() {
    const std::size_t start = pos_;
    ++pos_;
    bool negated = false;
    if (at('^')) {
      negated = true;
      ++pos_;
    }
    std::vector<Range> ranges;
    bool first = true;  // ']' is a member when it comes first
    while (pos_ < p_.size() && (p_[pos_] != ']' || first)) {
      first = false;
      if (p_.size() - pos_ > 2 && p_[pos_] == '[' && p_[pos_ + 1] == ':') {
        std::size_t q = pos_ + 2;
        while (q + 2 <= p_.size() && !(p_[q] == ':' && p_[q + 1] == ']')) ++q;
        if (q + 2 <= p_.size()) {  // "[:name:]" (RE2 looks for ":]" anywhere further on)
          const std::string_view whole = p_.substr(pos_, q + 2 - pos_);
          std::string_view name = p_.substr(pos_ + 2, q - pos_ - 2);
          const bool group_negated = !name.empty() && name[0] == '^';
          if (group_negated) name.remove_prefix(1);
          const Group* found = nullptr;
          for (const Group& g : posix_groups()) {
            if (name == g.name) found = &g;
          }
          if (!found) fail(pos_, fmt::format("invalid character class name '{}' at byte {}", whole, pos_));
          add_group(ranges, found->ranges, group_negated);
          pos_ = q + 2;
          continue;
        }
      }
      if (p_.size() - pos_ >= 2 && p_[pos_] == '\\' && (p_[pos_ + 1] == 'p' || p_[pos_ + 1] == 'P')) {
        fail(pos_, fmt::format("the Unicode class '{}' at byte {} is not supported (use a class such as [áéí])",
                               unicode_class_text(pos_), pos_));
      }
      if (auto group = perl_class(pos_)) {
        pos_ += 2;
        add_group(ranges, group->first->ranges, group->second);
        continue;
      }
      const std::size_t range_start = pos_;
      const char32_t lo = class_char(start);
      char32_t hi = lo;
      if (p_.size() - pos_ >= 2 && p_[pos_] == '-' && p_[pos_ + 1] != ']') {
        ++pos_;
        hi = class_char(start);
        if (hi < lo) {
          fail(range_start, fmt::format("bad character class range '{}' at byte {}: it ends below its start",
                                        p_.substr(range_start, pos_ - range_start), range_start));
        }
      }
      ranges.emplace_back(lo, hi);
    }
    if (pos_ >= p_.size()) {
      fail(pos_, fmt::format("missing ']' at byte {} (the end of the pattern) to close the class at byte {}", pos_,
                             start));
    }
    ++pos_;  // ']'
    return add_class(ranges, negated);
  }

  char32_t class_char(std::size_t class_start) {
    if (pos_ >= p_.size()) {
      fail(pos_, fmt::format("missing ']' at byte {} (the end of the pattern) to close the class at byte {}", pos_,
                             class_start));
    }
    if (p_[pos_] == '\\') return parse_escape();
    std::size_t length = 0;
    const char32_t cp = code_point_at(pos_, &length);
    pos_ += length;
    return cp;
  }

  std::string_view p_;
  const std::string& alphabet_;
  Tree& tree_;
  std::vector<char32_t> code_points_;  // of the alphabet's symbols
  std::set<std::string, std::less<>> names_;  // capture group names seen
  std::size_t pos_ = 0;
};

// ---------------------------------------------------------------------------
// Thompson NFA over alphabet indices.

constexpr std::int32_t kFail = -1;  // no state: the empty language
constexpr std::int32_t kSplit = -1;
constexpr std::int32_t kMatch = -2;

struct NfaNode {
  std::int32_t cls;  // >= 0: reads a symbol of Tree::classes[cls], then goes to out1; kSplit; kMatch
  std::int32_t out1, out2;
};

class Compiler {
 public:
  Compiler(const Tree& tree, std::size_t max_states) : tree_(tree), max_states_(max_states) {}

  std::vector<NfaNode> nodes;

  std::int32_t add(std::int32_t cls, std::int32_t out1, std::int32_t out2) {
    if (nodes.size() >= max_states_) {
      throw LimitError(fmt::format("the regex's NFA exceeds {} states", max_states_), Limit::kStates);
    }
    nodes.push_back({cls, out1, out2});
    return static_cast<std::int32_t>(nodes.size() - 1);
  }

  std::int32_t split(std::int32_t a, std::int32_t b) {
    if (a == kFail) return b;
    if (b == kFail || a == b) return a;
    return add(kSplit, a, b);
  }

  // The entry of an NFA fragment for `node` that continues to `next`.
  std::int32_t compile(int index, std::int32_t next) {
    const Node& n = tree_.nodes[static_cast<std::size_t>(index)];
    if (!n.nonempty || next == kFail) return n.nullable ? next : kFail;  // the language is {ε} or ∅
    switch (n.kind) {
      case Kind::kEmpty:
        return next;
      case Kind::kClass:
        return add(n.cls, next, kFail);
      case Kind::kConcat:
        for (auto it = n.kids.rbegin(); it != n.kids.rend(); ++it) next = compile(*it, next);
        return next;
      case Kind::kAlt: {
        // (Every alternative compiles to new nodes but the one {ε} kept, which is `next`.)
        std::vector<std::int32_t> entries;
        for (int kid : n.kids) entries.push_back(compile(kid, next));
        std::int32_t entry = kFail;
        for (auto it = entries.rbegin(); it != entries.rend(); ++it) entry = split(*it, entry);
        return entry;
      }
      case Kind::kStar:
        return star(n.kids[0], next);
      case Kind::kPlus:
        return plus(n.kids[0], next);
      case Kind::kQuest:
        return split(compile(n.kids[0], next), next);
      case Kind::kRepeat: {
        const int kid = n.kids[0];
        if (n.max < 0) {
          if (n.min == 0) return star(kid, next);
          next = plus(kid, next);
          for (int i = 1; i < n.min; ++i) next = compile(kid, next);
          return next;
        }
        // e{m,n} = e^m (e (e ...)?)? with n-m nested optional copies.
        std::int32_t tail = next;
        for (int i = n.min; i < n.max; ++i) tail = split(compile(kid, tail), next);
        for (int i = 0; i < n.min; ++i) tail = compile(kid, tail);
        return tail;
      }
    }
    return kFail;
  }

 private:
  std::int32_t star(int kid, std::int32_t next) {
    const std::int32_t loop = add(kSplit, kFail, next);
    const std::int32_t body = compile(kid, loop);
    nodes[static_cast<std::size_t>(loop)].out1 = body;
    return loop;
  }
  std::int32_t plus(int kid, std::int32_t next) {
    const std::int32_t loop = add(kSplit, kFail, next);
    const std::int32_t body = compile(kid, loop);
    nodes[static_cast<std::size_t>(loop)].out1 = body;
    return body;
  }

  const Tree& tree_;
  std::size_t max_states_;
};

struct VectorHash {
  std::size_t operator()(const std::vector<std::int32_t>& v) const {
    std::uint64_t h = 0xcbf29ce484222325ULL;
    for (std::int32_t x : v) h = (h ^ static_cast<std::uint32_t>(x)) * 0x100000001b3ULL;
    return static_cast<std::size_t>(h ^ (h >> 29));
  }
};

}  // namespace

Dfa dfa_from_regex(std::string_view pattern, const std::string& alphabet, std::size_t max_states) {
  const std::size_t k = alphabet.size();
  if (k > 256) throw InputError(fmt::format("an alphabet has at most 256 symbols, not {}", k));
  for (std::size_t i = 0; i < k; ++i) {
    if (alphabet.find(alphabet[i]) != i) {
      throw InputError(fmt::format("the alphabet {} has the symbol {} twice", alphabet_text(alphabet),
                                   sym::describe(alphabet[i])));
    }
  }
  Tree tree;
  const int root = Parser(pattern, alphabet, tree).parse();

  Compiler compiler(tree, std::max<std::size_t>(max_states, 1));
  const std::int32_t match = compiler.add(kMatch, kFail, kFail);
  const std::int32_t entry = compiler.compile(root, match);
  const std::vector<NfaNode>& nfa = compiler.nodes;

  // The symbols of each class, as a list.
  std::vector<std::vector<std::uint16_t>> members(tree.classes.size());
  for (std::size_t c = 0; c < tree.classes.size(); ++c) {
    for (std::size_t i = 0; i < k; ++i) {
      if ((tree.classes[c][i / 64] >> (i % 64)) & 1) members[c].push_back(static_cast<std::uint16_t>(i));
    }
  }

  // ε-closure: the reading and matching nodes reachable through splits, sorted.
  std::vector<std::uint32_t> seen(nfa.size(), 0);
  std::uint32_t epoch = 0;
  std::vector<std::int32_t> stack;
  auto closure = [&](const std::vector<std::int32_t>& seeds, std::vector<std::int32_t>& out) {
    out.clear();
    ++epoch;
    for (std::int32_t s : seeds) stack.push_back(s);
    while (!stack.empty()) {
      const std::int32_t q = stack.back();
      stack.pop_back();
      if (q == kFail || seen[static_cast<std::size_t>(q)] == epoch) continue;
      seen[static_cast<std::size_t>(q)] = epoch;
      const NfaNode& n = nfa[static_cast<std::size_t>(q)];
      if (n.cls == kSplit) {
        stack.push_back(n.out2);
        stack.push_back(n.out1);
      } else {
        out.push_back(q);
      }
    }
    std::sort(out.begin(), out.end());
  };

  // Subset construction from the start, breadth first.
  const std::size_t budget = 32 * max_states + (std::size_t{1} << 20);
  std::size_t stored = 0;
  std::unordered_map<std::vector<std::int32_t>, std::int32_t, VectorHash> ids;
  std::vector<const std::vector<std::int32_t>*> sets;
  Dfa dfa;
  dfa.alphabet = alphabet;
  dfa.start = 0;
  auto intern = [&](std::vector<std::int32_t>& set) -> std::int32_t {
    auto found = ids.find(set);
    if (found != ids.end()) return found->second;
    if (sets.size() >= max_states) {
      throw LimitError(fmt::format("the regex's DFA exceeds {} states", max_states), Limit::kStates);
    }
    stored += set.size();
    if (stored > budget) {
      throw LimitError(fmt::format("the regex's DFA construction stores more than {} NFA states (32 per allowed DFA "
                                   "state)",
                                   budget),
                       Limit::kStates);
    }
    const bool accepting = std::binary_search(set.begin(), set.end(), match);
    auto [it, inserted] = ids.emplace(std::move(set), static_cast<std::int32_t>(sets.size()));
    sets.push_back(&it->first);
    dfa.accepting.push_back(accepting);
    dfa.transitions.resize(sets.size() * k, -1);
    return it->second;
  };
  std::vector<std::int32_t> set;
  closure({entry}, set);
  intern(set);
  std::vector<std::vector<std::int32_t>> seeds(k);
  for (std::size_t q = 0; q < sets.size(); ++q) {
    throw_if_interrupted();
    for (auto& s : seeds) s.clear();
    for (std::int32_t node : *sets[q]) {
      const NfaNode& n = nfa[static_cast<std::size_t>(node)];
      if (n.cls < 0) continue;  // the match node
      for (std::uint16_t a : members[static_cast<std::size_t>(n.cls)]) seeds[a].push_back(n.out1);
    }
    for (std::size_t a = 0; a < k; ++a) {
      closure(seeds[a], set);
      const std::int32_t target = intern(set);  // (may grow `sets`: index, not reference)
      dfa.transitions[q * k + a] = target;
    }
  }
  return minimize(dfa);
}

}  // namespace softhat::automata
