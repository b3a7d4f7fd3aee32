// Dyck-k (k >= 2 bracket types, unbounded depth) as an average-hard attention
// transformer in the manner of Yao et al. (2021) (docs/theory.md, 'Dyck-k'): depth
// by uniform counting, a closer matched to the nearest earlier opener of
// equal depth (ties broken by position), then a check that every closer
// matched its type, no prefix went below zero and the final depth is zero.
// The softmax version is the same weights at the temperature the AHAT ->
// softmax theorem gives (softhat simulate); the file carries a schedule that
// covers it on the tested lengths (docs/dyck-and-khop.md).
//
// Alphabet: k pairs "open close", e.g. "()[]" (Dyck-2) or "()[]{}" (Dyck-3).
// Position features: 1, j, j^2, 1/(j+1), j/(n+1) (unbounded PE: j and j^2).
//
//   layer 0  uniform head, mask j <= i, value [open] - [close]:  A_i = d_i/(i+1)
//            (d_i: depth after position i; exact under softmax too)
//   layer 1  retrieval head, mask j <= i, q = (2 A_i, -1/(i+1)), k = (j, j^2):
//            score (2 d_i j - j^2)/(i+1), maximal at j = d_i (clamped to 0 when
//            d_i < 0), value (j, j^2):  D_i = max(d_i, 0), D2_i = D_i^2; gap >= 1/(i+1)
//            sign head ("BOS duel"), mask j <= i, q = A_i + 1/(2(i+1)), k = [not BOS]:
//            BOS wins iff d_i < 0;  neg_i (rounded, 0 at BOS); gap >= 1/(2(i+1))
//   layer 2  match head, mask j < i, q = (2(D_i + 1), -1, -2, 1),
//            k = (D_j, D2_j, [close_j], j/(n+1)): score b^2 - (D_j - b)^2 - 2[close_j]
//            + j/(n+1) for b = D_i + 1 (the depth before a closer), so the
//            rightmost opener j with D_j = b wins; BOS (score 0) when none;
//            value: the opener's type one-hot; all scores distinct, gap >= 1/(n+1)
//            FFN: badclose_i = [close_i] - sum_t AND(closeType_t(i), match_t(i))
//   layer 3  any-bad head, mask j <= i, score (neg_j + badclose_j) + [BOS]/2,
//            value [BOS]: 1 iff no bad position so far; gap 1/2
//            FFN: y = ReLU(nobad - D_n); accept iff y >= 1/2.
#pragma once

#include <string>

#include "model/transformer.h"

namespace softhat::compile {

// Throws InputError unless `pairs` is an even-length string of distinct
// symbols with at least one pair.
model::Transformer build_dyck(const std::string& pairs);

}  // namespace softhat::compile
