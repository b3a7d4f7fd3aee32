// A plain reference forward pass for tests: the whole score matrix of every
// head, a max-subtracted softmax per row, no blocking, no online rescaling.
#pragma once

#include <cmath>
#include <limits>
#include <string>

#include "model/forward.h"

namespace softhat::test {

inline bool reference_visible(model::Mask mask, long i, long j) {
  if (j == 0) return true;
  switch (mask) {
    case model::Mask::kNone: return true;
    case model::Mask::kStrictFuture: return j < i;
    case model::Mask::kFuture: return j <= i;
    case model::Mask::kStrictPast: return j > i;
    case model::Mask::kPast: return j >= i;
  }
  return false;
}

// The final residual stream, (n+1) x d.
inline model::Matrix reference_forward(const model::Transformer& t, const std::string& word,
                                       model::AttentionMode mode = model::AttentionMode::kSoftmax) {
  using model::Matrix;
  const auto& c = t.config;
  const long n = static_cast<long>(word.size()), N = n + 1;
  Matrix phi(N, c.position_width());
  for (long j = 0; j < N; ++j) {
    int off = 0;
    for (const auto& f : c.position_features) {
      f.evaluate(j, n, &phi(j, off));
      off += f.width();
    }
  }
  Matrix X = phi * t.pos_proj.transpose();
  for (long j = 0; j < N; ++j) X.row(j) += t.embed.row(j == 0 ? 0 : t.token(word[j - 1]));
  const double beta = c.beta.at(n);
  for (std::size_t l = 0; l < t.layers.size(); ++l) {
    Matrix delta = Matrix::Zero(N, c.d_model);
    for (std::size_t h = 0; h < t.layers[l].heads.size(); ++h) {
      const auto& w = t.layers[l].heads[h];
      const auto& hc = c.layers[l].heads[h];
      const Matrix S = (X * w.q.transpose()) * (X * w.k.transpose()).transpose();
      const Matrix V = X * w.v.transpose();
      Matrix O = Matrix::Zero(N, V.cols());
      for (long i = 0; i < N; ++i) {
        double best = -std::numeric_limits<double>::infinity();
        for (long j = 0; j < N; ++j) {
          if (reference_visible(hc.mask, i, j)) best = std::max(best, S(i, j));
        }
        if (mode == model::AttentionMode::kHard) {
          long chosen = -1, count = 0;
          for (long j = 0; j < N; ++j) {
            if (!reference_visible(hc.mask, i, j) || S(i, j) != best) continue;
            if (chosen < 0 || hc.hard == model::HardKind::kRightmost) chosen = j;
            ++count;
            if (hc.hard == model::HardKind::kAverage) O.row(i) += V.row(j);
          }
          if (hc.hard == model::HardKind::kAverage) O.row(i) /= static_cast<double>(count);
          else O.row(i) = V.row(chosen);
          continue;
        }
        double total = 0;
        for (long j = 0; j < N; ++j) {
          if (!reference_visible(hc.mask, i, j)) continue;
          const double p = std::exp(beta * S(i, j) - beta * best);
          total += p;
          O.row(i) += p * V.row(j);
        }
        O.row(i) /= total;
      }
      delta += O * w.o.transpose();
    }
    X += delta;
    const auto& lw = t.layers[l];
    Matrix H = (X * lw.fc1.transpose()).rowwise() + lw.b1;
    X += (H.cwiseMax(0.0) * lw.fc2.transpose()).rowwise() + lw.b2;
  }
  return X;
}

}  // namespace softhat::test
