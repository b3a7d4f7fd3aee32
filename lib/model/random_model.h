// Seeded random transformers of every shape the format allows (masks, hard
// kinds, position features, widths, depths), for tests, parity checks and
// benchmarks. Weights are uniform in [-1, 1]; unbounded position features
// (j, n, j^2) get small weights so softmax stays away from pure argmax.
#pragma once

#include <random>
#include <string>

#include "model/transformer.h"

namespace softhat::model {

struct RandomModelOptions {
  std::string alphabet = "ab";
  int max_layers = 3;
  int max_heads = 3;
  int max_d_model = 8;
};

Transformer random_model(std::mt19937_64& rng, const RandomModelOptions& options = {});

}  // namespace softhat::model
