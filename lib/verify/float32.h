// The float32 check behind compile --float32 (model-format.md, "float32"):
// the model is run in double and in float32 on every word up to a short
// length and on seeded balanced words (positives and near-miss negatives) at
// lengths up to max_len. The claim holds if on every word both runs give the
// same verdict (transducers: the same output) and the double run's margin is
// at least `safety` times the largest difference of the readout between the
// runs. This is a measurement on those words, not a proof: the claim records
// its words, lengths and numbers, and verify tests a model that carries it in
// float32 against the oracles.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "lang/language.h"
#include "model/forward.h"
#include "util/random.h"

namespace softhat::verify {

struct Float32Options {
  std::size_t max_len = 128;     // random words at 16, 32, ... up to this length
  std::size_t samples = 100;     // balanced words per length
  double safety = 8;             // required double margin / float32 deviation
  std::uint64_t seed = kDefaultSeed;
  int threads = 1;               // the result does not depend on it
  model::RunOptions run;         // mode softmax; beta, max_memory as the caller runs the model
};

struct Float32Result {
  model::Float32Claim claim;     // the numbers over all words checked (max_length: the longest)
  bool holds = false;
  // The first failing word (in check order) and why, when the claim does not hold.
  std::string failure;
};

// Throws what the engine throws on a word (memory limit, overflow).
Float32Result check_float32(const model::Transformer& model, const lang::Language& language,
                            const Float32Options& options);

}  // namespace softhat::verify
