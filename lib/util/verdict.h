// What a decider says of a word: an acceptor's accept or reject, or a
// transducer's output (one symbol per position). Deciders (the transformer,
// its average-hard run, the oracles) are compared by value; the MLRegTest
// spelling TRUE/FALSE appears only where a verdict is printed.
#pragma once

#include <string>
#include <utility>
#include <variant>

namespace softhat {

class Verdict {
 public:
  static Verdict accept(bool accepted) { return Verdict(accepted); }
  static Verdict output(std::string symbols) { return Verdict(std::move(symbols)); }

  bool is_output() const { return std::holds_alternative<std::string>(value_); }
  bool accepted() const { return std::get<bool>(value_); }
  const std::string& symbols() const { return std::get<std::string>(value_); }
  // "TRUE", "FALSE", or the output's symbol codes.
  std::string str() const { return is_output() ? symbols() : accepted() ? "TRUE" : "FALSE"; }

  friend bool operator==(const Verdict&, const Verdict&) = default;

 private:
  explicit Verdict(std::variant<bool, std::string> value) : value_(std::move(value)) {}
  std::variant<bool, std::string> value_;
};

}  // namespace softhat
