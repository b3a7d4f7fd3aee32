// Prefix sharing for causally masked models: words of one length n that
// share a prefix share the computation of every position in it. With only
// future / strict-future masks (BOS always visible), position i's residual
// vectors at every layer depend on the first i symbols alone (and on n, fixed
// here), so the runner keeps, per layer, the residual rows and every head's
// key and value rows of the current prefix (a key/value cache) and extends
// or shortens it one position at a time. Walking the words of a length in
// lexicographic order, consecutive words share all but about one position,
// so checking every word costs about |alphabet|^n * n * d instead of
// |alphabet|^n * n^2 * d.
//
// Softmax mode in double precision; each row is computed exactly as the
// engine's definition (max-subtracted softmax, weights below e^-700 are 0),
// agreeing with Engine::run to rounding (tested to 1e-12).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/forward.h"

namespace softhat::model {

class PrefixRunner {
 public:
  // Whether a model qualifies: every head's mask is future or strict-future.
  static bool applies(const Transformer& model);

  // A runner for words of length n (the position features and beta(n) are
  // those of n); beta overrides the model's schedule if given.
  PrefixRunner(const Transformer& model, std::size_t n, std::optional<BetaSchedule> beta = std::nullopt);

  std::size_t length() const { return n_; }
  std::size_t depth() const { return tokens_.size(); }  // symbols pushed
  // Makes the prefix `word` (length n): keeps the common prefix with the
  // current one and computes the rest. Throws std::invalid_argument for a
  // symbol outside the alphabet or a word of another length.
  RunResult run(std::string_view word);

 private:
  void compute_row(std::int64_t i, int token);  // position i's rows, from the cached rows 0..i-1
  const Transformer& model_;
  std::size_t n_;
  double beta_;
  std::string prefix_;
  std::vector<int> tokens_;
  std::vector<Matrix> x_;                  // per layer + 1: residual rows (n+1) x d at the layer's input
  std::vector<std::vector<Matrix>> k_, v_;  // per layer, head: key and value rows (n+1) x d_head / d_value
  Matrix phi_;                             // position features (n+1) x F
  // Per position: the minima of the margin statistics over rows 0..i.
  std::vector<double> mass_, gap_;
  // Scratch rows, allocated once (a row costs no allocation).
  Vector x_row_, delta_, q_, acc_, hidden_, out_;
  std::vector<double> scores_;
};

}  // namespace softhat::model
