// The exact average-hard attention transformer (AHAT) of a model file, and the
// score gaps of its attention rows (docs/theory.md, 'Score gaps and margins').
//
// Every quantity of the AHAT forward pass is a rational number: the weights
// are doubles (dyadic rationals), the position features are rationals in j
// and n, ReLU and the average over an argmax set keep rationality. So the
// pass is computed in exact rational arithmetic (GMP), and ties between
// scores are exact equalities, never a tolerance guess.
//
// Conventions (the engine's, model/config.h): position 0 is BOS, visible
// under every mask; every head is run as average-hard, whatever hard kind it
// declares: a row attends uniformly to its argmax set M_i of visible keys.
//
// Row gap: max score minus the best score of a visible key outside M_i;
// a row whose visible scores all tie ("uniform") has no gap (+inf). The gap
// of a head on a word is the minimum over its rows; gamma(w) the minimum over
// heads. Heads whose query or key projection is all zero are uniform on every
// input (their softmax equals their average-hard attention for any beta).
//
// Speed: scores are screened in double with a rigorous rounding bound and
// only the near-best keys are scored exactly; keys with few distinct values
// are grouped, and their sums come from per-class prefix sums. A word of
// length 1000 through a 4-layer model takes well under a second.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "model/forward.h"
#include "model/transformer.h"

namespace softhat::model {

struct HeadGap {
  int layer = 0;
  int head = 0;
  bool uniform_head = false;      // W_Q = 0 or W_K = 0: every row uniform
  double gap = kNoGap;            // minimum row gap (exact, rounded to double at the end)
  std::int64_t rows = 0;          // rows seen
  std::int64_t uniform_rows = 0;  // rows whose visible scores all tie
  std::int64_t tied_rows = 0;     // rows whose argmax set has more than one key but not all
  double max_value_norm = 0;      // max over keys of |o_proj v_j|_2 (V_h of the error bound)
  void merge(const HeadGap& o);
};

struct ExactRun {
  bool accepted = false;
  double y = 0;              // readout coordinate at position n
  double output_margin = 0;  // |y - threshold|
  Matrix states;             // the final residual stream, (n+1) x d, exact values rounded
  std::vector<double> input_norms;  // per layer: max over positions of |x_i|_2 at its input
  std::vector<HeadGap> heads;       // layer-major
  double min_gap() const;           // +inf if every row of every head is uniform
};

class ExactAhat {
 public:
  explicit ExactAhat(const Transformer& model);
  ~ExactAhat();
  ExactAhat(ExactAhat&&) noexcept;
  // Throws std::invalid_argument for a symbol outside the alphabet.
  ExactRun run(std::string_view word) const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace softhat::model
