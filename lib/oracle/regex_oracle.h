// Membership by an RE2 regular expression (full match), one of softhat's
// independent oracles. Words are byte strings (Latin-1 mode, so every symbol
// is one byte). RE2's memory budget is raised so that large alphabets and long
// words stay on its DFA path; an invalid pattern is reported with the
// language's name and RE2's own message.
#pragma once

#include <memory>
#include <string>
#include <string_view>

namespace re2 {
class RE2;
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

}  // namespace softhat::oracle
