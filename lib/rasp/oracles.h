#pragma once

// Direct oracles for the example programs of examples/srasp/ (docs/srasp.md,
// the §2 list): each computes the program's intended output from the word by
// ordinary string code, independent of the S-RASP semantics, so that the
// interpreter and the compiled model are both checked against something that
// is not themselves.

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace softhat::rasp {

// Input and output are plain text (one ASCII character per symbol).
using ProgramOracle = std::function<std::string(const std::string&)>;

// The oracle named `name` (an example's file stem: rotate, firsthalf, ...),
// or nullptr if there is none.
const ProgramOracle* direct_oracle(std::string_view name);
std::vector<std::string> oracle_names();

}  // namespace softhat::rasp
