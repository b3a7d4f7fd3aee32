#include "model/temperature_bound.h"

#include <Eigen/SVD>
#include <algorithm>
#include <cmath>
#include <limits>

namespace softhat::model {

namespace {

double spectral_norm(const Eigen::MatrixXd& m) {
  if (m.size() == 0 || m.cwiseAbs().maxCoeff() == 0.0) return 0.0;
  Eigen::BDCSVD<Eigen::MatrixXd> svd(m);
  return svd.singularValues()(0);
}

}  // namespace

std::vector<LayerNorms> weight_norms(const Transformer& model) {
  std::vector<LayerNorms> out;
  for (const LayerWeights& lw : model.layers) {
    LayerNorms ln;
    for (const HeadWeights& h : lw.heads) {
      const Eigen::MatrixXd qk = h.q.transpose() * h.k;  // d x d: s_ij = x_i^T (W_Q^T W_K) x_j
      const Eigen::MatrixXd ov = h.o * h.v;              // d x d
      ln.heads.push_back({spectral_norm(qk), spectral_norm(ov)});
    }
    ln.ffn_lipschitz = 1.0 + spectral_norm(lw.fc2) * spectral_norm(lw.fc1);
    out.push_back(std::move(ln));
  }
  return out;
}

ErrorBound softmax_error_bound(const std::vector<LayerNorms>& norms, const GapProfile& profile, double beta) {
  ErrorBound eb;
  double delta = 0;
  const double m1 = static_cast<double>(std::max<std::int64_t>(1, profile.keys) - 1);
  for (std::size_t l = 0; l < norms.size(); ++l) {
    const double r = profile.input_norm[l];
    double out = delta;
    for (std::size_t h = 0; h < norms[l].heads.size(); ++h) {
      const HeadNorms& hn = norms[l].heads[h];
      const double gamma = profile.gap[l][h];
      const double eta = hn.score_norm * (2 * r + delta) * delta;
      if (2 * beta * eta > 1) eb.side_conditions = false;
      double tv = std::expm1(2 * beta * eta);
      if (gamma < std::numeric_limits<double>::infinity()) {
        if (eta > gamma / 4) eb.side_conditions = false;
        tv += 2 * m1 * std::exp(-beta * (gamma - 2 * eta));
      }
      out += hn.value_map_norm * delta + profile.value_norm[l][h] * tv;
    }
    delta = norms[l].ffn_lipschitz * out;
    eb.layer_error.push_back(delta);
  }
  eb.final_error = delta;
  return eb;
}

TheoremBeta theorem_beta(const std::vector<LayerNorms>& norms, const GapProfile& profile, double epsilon) {
  double gamma = std::numeric_limits<double>::infinity(), sum_v = 0;
  for (std::size_t l = 0; l < norms.size(); ++l) {
    for (std::size_t h = 0; h < norms[l].heads.size(); ++h) {
      gamma = std::min(gamma, profile.gap[l][h]);
      sum_v += profile.value_norm[l][h];
    }
  }
  auto ok = [&](double beta, ErrorBound& eb) {
    eb = softmax_error_bound(norms, profile, beta);
    return eb.side_conditions && eb.final_error <= epsilon;
  };
  TheoremBeta tb;
  if (!(gamma < std::numeric_limits<double>::infinity())) {
    // No attention row has a gap: every row is uniform, softmax is exact at any beta.
    tb.found = ok(1.0, tb.bound);
    tb.beta = 1.0;
    return tb;
  }
  const double m1 = static_cast<double>(std::max<std::int64_t>(2, profile.keys) - 1);
  double hi = std::max(1e-12, 2 * std::log(std::max(2 * m1 * sum_v / epsilon, 2.0)) / gamma);
  ErrorBound eb;
  while (!ok(hi, eb)) {
    hi *= 1.25;
    if (hi > 1e18) return tb;
  }
  tb.found = true;
  tb.beta = hi;
  tb.bound = eb;
  // A beta below the smallest that meets the bound, then bisection (log scale).
  double lo = hi;
  do {
    lo /= 2;
    if (lo < 1e-12) return tb;
  } while (ok(lo, eb));
  for (int it = 0; it < 40; ++it) {
    const double mid = std::sqrt(lo * hi);
    if (ok(mid, eb)) {
      hi = mid;
      tb.beta = mid;
      tb.bound = eb;
    } else {
      lo = mid;
    }
  }
  return tb;
}

}  // namespace softhat::model
