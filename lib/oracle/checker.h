// Hand-written membership checkers: oracles for languages that have no
// regular expression (counting languages) or whose regex is a poor oracle.
// Each is a few lines of direct code, independent of the formula evaluator.
//
//   dyck      symbols = "()[]..."  pairs of open/close brackets; balanced and
//                                  properly nested (the empty word is in)
//   anbn      symbols = "ab"/"abc" a^n b^n (c^n), n >= 0
//   majority  symbols = "ab"       strictly more a than b
//   parity    symbols = "1"        an odd number of 1
#pragma once

#include <string>
#include <string_view>

namespace softhat::oracle {

class Checker {
 public:
  // Throws softhat::InputError for an unknown kind or bad symbols.
  Checker(std::string kind, std::string symbols);
  bool accepts(std::string_view word) const;
  const std::string& kind() const { return kind_; }
  const std::string& symbols() const { return symbols_; }
  std::string describe() const;

 private:
  std::string kind_;
  std::string symbols_;
};

}  // namespace softhat::oracle
