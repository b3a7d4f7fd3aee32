// Error kinds and the exit statuses they map to (architecture.md, command-line
// contract): 0 success, 1 a verification found a disagreement, 2 usage or
// input error, 3 internal error. Library code throws; `main` alone maps.
#pragma once

#include <stdexcept>
#include <string>

namespace softhat {

inline constexpr int kExitOk = 0;
inline constexpr int kExitDisagreement = 1;
inline constexpr int kExitInput = 2;
inline constexpr int kExitInternal = 3;

// Bad user input: a flag, a file, a formula, a catalogue entry. Exit 2.
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A resource limit the work would pass (exit 2). The message says what and
// by how much; `limit()` says which limit, so that the CLI can name the flag
// that raises it (library code never speaks of flags).
// kFixed: a built-in bound no flag raises.
enum class Limit : unsigned char { kFixed, kStates, kMemory, kLength };
class LimitError : public InputError {
 public:
  explicit LimitError(const std::string& what, Limit limit = Limit::kFixed) : InputError(what), limit_(limit) {}
  Limit limit() const { return limit_; }

 private:
  Limit limit_;
};

// A model run whose numbers leave double's range (an infinite logit or
// residual value): the weights or the inverse temperature are too large for
// this word. An input error (exit 2), not a bug.
class NumericError : public InputError {
 public:
  using InputError::InputError;
};

}  // namespace softhat
