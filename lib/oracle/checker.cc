#include "oracle/checker.h"

#include <fmt/format.h>

#include <vector>

#include "util/error.h"

namespace softhat::oracle {

Checker::Checker(std::string kind, std::string symbols) : kind_(std::move(kind)), symbols_(std::move(symbols)) {
  auto need = [&](bool ok, const char* what) {
    if (!ok) throw InputError(fmt::format("checker '{}': symbols \"{}\" {}", kind_, symbols_, what));
  };
  for (std::size_t i = 0; i < symbols_.size(); ++i) {
    need(symbols_.find(symbols_[i]) == i, "repeat a symbol");
  }
  if (kind_ == "dyck") {
    need(!symbols_.empty() && symbols_.size() % 2 == 0, "must be pairs of open and close brackets");
  } else if (kind_ == "anbn") {
    need(symbols_.size() == 2 || symbols_.size() == 3, "must be 2 or 3 letters");
  } else if (kind_ == "majority") {
    need(symbols_.size() == 2, "must be 2 letters (the majority one first)");
  } else if (kind_ == "parity") {
    need(symbols_.size() == 1, "must be 1 letter (the one counted)");
  } else {
    throw InputError(fmt::format("unknown checker kind '{}' (known: dyck, anbn, majority, parity)", kind_));
  }
}

bool Checker::accepts(std::string_view word) const {
  if (kind_ == "dyck") {
    std::vector<std::size_t> stack;
    for (char c : word) {
      const std::size_t k = symbols_.find(c);
      if (k == std::string::npos) return false;
      if (k % 2 == 0) {
        stack.push_back(k);
      } else {
        if (stack.empty() || stack.back() != k - 1) return false;
        stack.pop_back();
      }
    }
    return stack.empty();
  }
  if (kind_ == "anbn") {
    std::size_t count[3] = {0, 0, 0};
    std::size_t block = 0;
    for (char c : word) {
      const std::size_t k = symbols_.find(c);
      if (k == std::string::npos || k < block) return false;
      block = k;
      ++count[k];
    }
    for (std::size_t k = 1; k < symbols_.size(); ++k) {
      if (count[k] != count[0]) return false;
    }
    return true;
  }
  if (kind_ == "majority") {
    std::size_t more = 0, less = 0;
    for (char c : word) {
      more += c == symbols_[0];
      less += c == symbols_[1];
    }
    return more > less;
  }
  // parity
  std::size_t count = 0;
  for (char c : word) count += c == symbols_[0];
  return count % 2 == 1;
}

std::string Checker::describe() const { return fmt::format("{}({})", kind_, symbols_); }

}  // namespace softhat::oracle
