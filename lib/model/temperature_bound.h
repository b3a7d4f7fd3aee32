// The inverse temperature the AHAT -> softmax theorem requires: run an
// average-hard transformer's weights with softmax at beta and every residual
// vector stays within eps of the AHAT's (docs/theory.md, 'From average-hard to
// softmax'). Derivation, in docs/simulate.md:
//
//   Per head h of layer l, from the weights: B_h = |W_Q^T W_K|_2 (scores are
//   x_i^T W_Q^T W_K x_j), K_h = |W_O W_V|_2; per layer L_F = 1 + |W2|_2 |W1|_2.
//   From the exact AHAT run (model/exact_ahat.h): R_l = max |x_i|_2 at the
//   layer's input, V_h = max_j |W_O W_V x_j|_2, gamma_h = the head's minimum
//   row gap, m = n + 1 keys at most.
//
//   With input error delta (max_i |x~_i - x_i|_2), scores move by at most
//   eta_h = B_h (2 R_l + delta) delta. If eta_h <= gamma_h / 4 and
//   2 beta eta_h <= 1, a row's softmax weights are within
//   TV_h = 2 (m-1) e^{-beta (gamma_h - 2 eta_h)} + (e^{2 beta eta_h} - 1)
//   of uniform-on-the-argmax-set in l1 (the second term alone for uniform
//   rows), so the head output moves by at most K_h delta + V_h TV_h, and
//   delta_l <= L_F (delta + sum_h (K_h delta + V_h TV_h)).
//
// theorem_beta() searches the smallest beta whose final delta_L is <= eps
// with every side condition met (geometric growth from the closed-form start
// 2 ln(2 (m-1) sum V / eps) / gamma, then bisection on a log scale).
// The guarantee holds for every word whose row gaps are >= the gamma_h used
// and whose norms are <= the R_l, V_h used: for all words of the length when
// they were measured exhaustively, for the tested words otherwise.
#pragma once

#include <cstdint>
#include <vector>

#include "model/transformer.h"

namespace softhat::model {

struct HeadNorms {
  double score_norm = 0;  // B_h
  double value_map_norm = 0;  // K_h
};

struct LayerNorms {
  std::vector<HeadNorms> heads;
  double ffn_lipschitz = 1;  // L_F
};

std::vector<LayerNorms> weight_norms(const Transformer& model);

// What the exact AHAT run measured at one length (maxima of norms, minima of gaps).
struct GapProfile {
  std::int64_t keys = 1;  // m: the most keys a row can see (n + 1)
  std::vector<double> input_norm;               // R_l per layer
  std::vector<std::vector<double>> gap;         // gamma_h per layer and head (+inf: no finite gap)
  std::vector<std::vector<double>> value_norm;  // V_h per layer and head
};

struct ErrorBound {
  bool side_conditions = true;     // eta <= gamma/4 and 2 beta eta <= 1 everywhere
  double final_error = 0;          // delta_L
  std::vector<double> layer_error;  // delta_l after each layer
};

ErrorBound softmax_error_bound(const std::vector<LayerNorms>& norms, const GapProfile& profile, double beta);

struct TheoremBeta {
  bool found = false;  // false: no beta up to 1e18 meets the bound
  double beta = 0;
  ErrorBound bound;
};

TheoremBeta theorem_beta(const std::vector<LayerNorms>& norms, const GapProfile& profile, double epsilon);

}  // namespace softhat::model
