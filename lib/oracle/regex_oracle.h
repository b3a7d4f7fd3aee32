// Membership by an RE2 regular expression (full match), one of softhat's
// independent oracles. Patterns are UTF-8 and RE2 runs in UTF-8 mode, so one
// code point is one symbol (`.` and classes match a whole code point; `.`
// also matches a newline). Words are symbol codes (util/symbols.h): an ASCII
// word is matched as it is, without a copy; a word with non-ASCII codes is
// encoded to UTF-8 first. RE2's memory budget is raised so that large
// alphabets and long words stay on its DFA path; an invalid pattern is
// reported with the language's name and RE2's own message.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace re2 {
class RE2;
}

namespace softhat::automata {
struct Dfa;
}

namespace softhat::oracle {

class RegexOracle {
 public:
  // Throws softhat::InputError naming `language` if the pattern is invalid.
  RegexOracle(std::string pattern, std::string language);
  ~RegexOracle();
  RegexOracle(RegexOracle&&) noexcept;
  RegexOracle& operator=(RegexOracle&&) noexcept;

  bool accepts(std::string_view word) const;
  const std::string& pattern() const { return pattern_; }

 private:
  std::string pattern_;
  std::unique_ptr<re2::RE2> re_;
};

// Compares dfa with RE2 FullMatch on every word over dfa.alphabet up to the
// longest length L with |alphabet|^0+...+|alphabet|^L <= max_words (at least
// length 1). Returns the shortest, then lexicographically first (in the order
// of dfa.alphabet), word (symbol codes) on which they differ, or nullopt.
std::optional<std::string> first_disagreement(const automata::Dfa& dfa, const RegexOracle& re2,
                                              std::size_t max_words = 20000);

}  // namespace softhat::oracle
