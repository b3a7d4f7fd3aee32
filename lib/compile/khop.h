// k-hop induction heads as a softmax transformer (docs/theory.md, 'k-hop
// induction heads'): k+1 layers of one head each, every head a
// "rightmost match" head whose scores are distinct multiples of
// delta = 1/(n+1), so beta(n) = c (n+1), i.e. tau(n) = 1/(c(n+1)) = Theta(1/n),
// puts at most 1/(e^c - 1) of the weight off the target (geometric sum, docs/theory.md, 'Score gaps and margins');
// with c = 3 that is <= 0.0524 and the rounding FFN
// rho(a) = ReLU(2a - 1/2) - ReLU(2a - 3/2) makes every one-hot exact again.
//
//   layer 0    prev(i) = w_{i-1}: mask j < i, score j/(n+1), value onehot(w_j)
//              (BOS: zeros = none); rounded.
//   layer t    (t = 1..k) mask j <= i; score [prev(j) = w_i] + j/(n+1) for real
//              j and 1 for BOS: members (n+1+j)/(n+1) > BOS (n+1)/(n+1) >
//              non-members j/(n+1), so the rightmost j <= i whose predecessor
//              is w_i wins: j = find(i); value onehot(hop_{t-1}(j)) (hop_0 = w;
//              zeros where undefined and at BOS); rounded.
//   readout    at every position: the symbol of the largest hop_k coordinate
//              if it is >= 1/2, else '~'.
#pragma once

#include <string>

#include "model/transformer.h"

namespace softhat::compile {

inline constexpr double kKhopC = 3.0;

// Throws InputError unless hops >= 1 and the alphabet has 2..26 distinct
// symbols, none of them '~'.
model::Transformer build_khop(const std::string& alphabet, int hops, double c = kKhopC);

}  // namespace softhat::compile
