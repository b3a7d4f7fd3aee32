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

}  // namespace softhat
