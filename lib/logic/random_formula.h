// Seeded random formulas for property tests, fuzzing and benchmarks.
#pragma once

#include <random>
#include <string>

#include "logic/formula.h"

namespace softhat::logic {

struct RandomFormulaOptions {
  std::string alphabet = "ab";
  int max_depth = 4;
  bool past = true;
  bool future = true;
  bool counting = false;
  bool modular = false;
};

Formula random_formula(std::mt19937_64& rng, const RandomFormulaOptions& options);

}  // namespace softhat::logic
