#include "model/exact_ahat.h"

#include <fmt/format.h>
#include <gmpxx.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <stdexcept>

namespace softhat::model {

void HeadGap::merge(const HeadGap& o) {
  gap = std::min(gap, o.gap);
  rows += o.rows;
  uniform_rows += o.uniform_rows;
  tied_rows += o.tied_rows;
  max_value_norm = std::max(max_value_norm, o.max_value_norm);
}

double ExactRun::min_gap() const {
  double g = kNoGap;
  for (const HeadGap& h : heads) g = std::min(g, h.gap);
  return g;
}

namespace {

using Q = mpq_class;

// A weight matrix [out, in] kept as its exact nonzero entries per output row
// (compiled weights are mostly zeros), plus the double original for norms.
struct Sparse {
  int out = 0, in = 0;
  std::vector<std::vector<std::pair<int, Q>>> rows;
  const Matrix* dense = nullptr;
  bool zero() const {
    for (const auto& r : rows) {
      if (!r.empty()) return false;
    }
    return true;
  }
  // y = W x for one row x (length in) into y (length out).
  void apply(const Q* x, Q* y) const {
    Q t;
    for (int o = 0; o < out; ++o) {
      y[o] = 0;
      for (const auto& [i, w] : rows[o]) {
        if (sgn(x[i]) == 0) continue;
        mpq_mul(t.get_mpq_t(), w.get_mpq_t(), x[i].get_mpq_t());
        y[o] += t;
      }
    }
  }
};

Sparse make_sparse(const Matrix& m) {
  Sparse s;
  s.out = static_cast<int>(m.rows());
  s.in = static_cast<int>(m.cols());
  s.rows.resize(s.out);
  s.dense = &m;
  for (int o = 0; o < s.out; ++o) {
    for (int i = 0; i < s.in; ++i) {
      if (m(o, i) != 0.0) s.rows[o].emplace_back(i, Q(m(o, i)));
    }
  }
  return s;
}

// The position feature values of model/config.cc, as exact rationals.
void exact_feature(const PositionFeature& f, std::int64_t j, std::int64_t n, Q* out) {
  using K = PositionFeature::Kind;
  const Q jq(static_cast<long>(j)), frac(Q(static_cast<long>(j), static_cast<long>(n + 1)));
  switch (f.kind) {
    case K::kOne: *out = 1; return;
    case K::kFraction: *out = frac; return;
    case K::kIndex: *out = jq; return;
    case K::kLength: *out = static_cast<long>(n); return;
    case K::kFractionSquared: *out = frac * frac; return;
    case K::kIndexSquared: *out = jq * jq; return;
    case K::kInverse: *out = Q(1, static_cast<long>(j + 1)); return;
    case K::kModOneHot:
      for (int r = 0; r < f.m; ++r) out[r] = (j % f.m) == r ? 1 : 0;
      return;
    case K::kAlternating: *out = (j % 2 == 0) ? 1 : -1; return;
  }
}

// Visible non-BOS keys of query i: [lo, hi) (BOS is always visible).
std::pair<std::int64_t, std::int64_t> visible_range(Mask mask, std::int64_t i, std::int64_t n_pos) {
  switch (mask) {
    case Mask::kNone: return {1, n_pos};
    case Mask::kStrictFuture: return {1, std::max<std::int64_t>(1, i)};
    case Mask::kFuture: return {1, std::max<std::int64_t>(1, i + 1)};
    case Mask::kStrictPast: return {i + 1, n_pos};
    case Mask::kPast: return {std::max<std::int64_t>(1, i), n_pos};
  }
  return {1, n_pos};
}

// Row-major exact matrix.
struct QMat {
  std::int64_t rows = 0;
  int cols = 0;
  std::vector<Q> data;
  QMat(std::int64_t r, int c) : rows(r), cols(c), data(static_cast<std::size_t>(r) * c) {}
  Q* row(std::int64_t i) { return data.data() + i * cols; }
  const Q* row(std::int64_t i) const { return data.data() + i * cols; }
};

QMat project(const Sparse& w, const QMat& x) {
  QMat y(x.rows, w.out);
  for (std::int64_t i = 0; i < x.rows; ++i) w.apply(x.row(i), y.row(i));
  return y;
}

void dot(const Q* a, const Q* b, int d, Q& s, Q& t) {
  s = 0;
  for (int l = 0; l < d; ++l) {
    if (sgn(a[l]) == 0 || sgn(b[l]) == 0) continue;
    mpq_mul(t.get_mpq_t(), a[l].get_mpq_t(), b[l].get_mpq_t());
    s += t;
  }
}

double norm2(const Eigen::VectorXd& v) { return v.norm(); }

constexpr std::size_t kMaxKeyClasses = 64;

struct HeadPrep {
  Sparse q, k, v, o;
  Mask mask;
  bool uniform;
};

struct LayerPrep {
  std::vector<HeadPrep> heads;
  Sparse fc1, fc2;
  std::vector<Q> b1, b2;
};

// Tracks a head's statistics on one word.
struct RowStats {
  HeadGap& g;
  Q min_gap;
  bool has_gap = false;
  void uniform() {
    ++g.rows;
    ++g.uniform_rows;
  }
  void row(const Q& gap, std::size_t argmax_size) {
    ++g.rows;
    if (argmax_size > 1) ++g.tied_rows;
    if (!has_gap || gap < min_gap) min_gap = gap;
    has_gap = true;
  }
};

}  // namespace

struct ExactAhat::Impl {
  Transformer model;  // owned: the sparse copies point into it
  std::vector<LayerPrep> layers;

  explicit Impl(const Transformer& original) : model(original) {
    const Transformer& m = model;
    for (std::size_t l = 0; l < m.layers.size(); ++l) {
      const LayerWeights& lw = m.layers[l];
      LayerPrep lp;
      for (std::size_t h = 0; h < lw.heads.size(); ++h) {
        HeadPrep hp{make_sparse(lw.heads[h].q), make_sparse(lw.heads[h].k), make_sparse(lw.heads[h].v),
                    make_sparse(lw.heads[h].o), m.config.layers[l].heads[h].mask, false};
        hp.uniform = hp.q.zero() || hp.k.zero();
        lp.heads.push_back(std::move(hp));
      }
      lp.fc1 = make_sparse(lw.fc1);
      lp.fc2 = make_sparse(lw.fc2);
      for (Eigen::Index c = 0; c < lw.b1.cols(); ++c) lp.b1.emplace_back(lw.b1(c));
      for (Eigen::Index c = 0; c < lw.b2.cols(); ++c) lp.b2.emplace_back(lw.b2(c));
      layers.push_back(std::move(lp));
    }
  }

  // One head over all rows: out (n_pos x d_value) and the head's statistics.
  void head(const HeadPrep& hp, const QMat& X, QMat& out, HeadGap& stats) const {
    const std::int64_t n_pos = X.rows;
    const QMat V = project(hp.v, X);
    const int dv = hp.v.out;
    out = QMat(n_pos, dv);
    // V_h: the largest value vector after o_proj (double).
    {
      Eigen::VectorXd vd(dv);
      for (std::int64_t j = 0; j < n_pos; ++j) {
        for (int c = 0; c < dv; ++c) vd(c) = V.row(j)[c].get_d();
        stats.max_value_norm = std::max(stats.max_value_norm, norm2(*hp.o.dense * vd));
      }
    }
    RowStats rs{stats, Q(0)};
    if (hp.uniform) {
      // Every score is 0: each row averages its visible keys (prefix sums).
      QMat prefix(n_pos + 1, dv);  // prefix.row(t) = sum of V over keys 1..t-1
      for (std::int64_t j = 1; j < n_pos; ++j) {
        for (int c = 0; c < dv; ++c) prefix.row(j + 1)[c] = prefix.row(j)[c] + V.row(j)[c];
      }
      for (std::int64_t i = 0; i < n_pos; ++i) {
        auto [lo, hi] = visible_range(hp.mask, i, n_pos);
        hi = std::max(hi, lo);
        const long count = static_cast<long>(1 + hi - lo);
        for (int c = 0; c < dv; ++c) {
          out.row(i)[c] = (V.row(0)[c] + prefix.row(hi)[c] - prefix.row(lo)[c]) / Q(count);
        }
        rs.uniform();
      }
      if (rs.has_gap) stats.gap = std::min(stats.gap, rs.min_gap.get_d());
      return;
    }
    const QMat Qm = project(hp.q, X);
    const QMat Km = project(hp.k, X);
    const int dh = hp.q.out;
    // Group keys by exact value: few classes -> scores per class, sums by prefix.
    std::map<std::vector<Q>, int> class_of;
    std::vector<int> cls(n_pos);
    bool few = true;
    for (std::int64_t j = 0; j < n_pos && few; ++j) {
      std::vector<Q> key(Km.row(j), Km.row(j) + dh);
      auto [it, inserted] = class_of.emplace(std::move(key), static_cast<int>(class_of.size()));
      cls[j] = it->second;
      if (class_of.size() > kMaxKeyClasses) few = false;
    }
    if (few) {
      class_rows(hp, Qm, Km, V, cls, static_cast<int>(class_of.size()), out, rs);
    } else {
      screened_rows(hp, Qm, Km, V, out, rs);
    }
    if (rs.has_gap) stats.gap = std::min(stats.gap, rs.min_gap.get_d());
  }

  // Keys with few distinct values: per class, the (ascending) positions and
  // prefix sums of the values along them.
  void class_rows(const HeadPrep& hp, const QMat& Qm, const QMat& Km, const QMat& V, const std::vector<int>& cls,
                  int classes, QMat& out, RowStats& rs) const {
    const std::int64_t n_pos = Qm.rows;
    const int dh = hp.q.out, dv = hp.v.out;
    std::vector<std::vector<std::int64_t>> pos(classes);
    std::vector<std::int64_t> rep(classes, -1);
    for (std::int64_t j = 0; j < n_pos; ++j) {
      pos[cls[j]].push_back(j);
      if (rep[cls[j]] < 0) rep[cls[j]] = j;
    }
    std::vector<QMat> cum;
    for (int c = 0; c < classes; ++c) {
      QMat m(static_cast<std::int64_t>(pos[c].size()) + 1, dv);
      for (std::size_t t = 0; t < pos[c].size(); ++t) {
        for (int e = 0; e < dv; ++e) m.row(t + 1)[e] = m.row(t)[e] + V.row(pos[c][t])[e];
      }
      cum.push_back(std::move(m));
    }
    std::vector<Q> score(classes);
    std::vector<std::int64_t> a(classes), b(classes);  // visible index range within pos[c]
    std::vector<bool> bos_in(classes);
    Q t;
    for (std::int64_t i = 0; i < n_pos; ++i) {
      auto [lo, hi] = visible_range(hp.mask, i, n_pos);
      hi = std::max(hi, lo);
      int best = -1, second = -1;
      for (int c = 0; c < classes; ++c) {
        const auto& p = pos[c];
        bos_in[c] = !p.empty() && p[0] == 0;
        a[c] = std::lower_bound(p.begin(), p.end(), lo) - p.begin();
        b[c] = std::lower_bound(p.begin(), p.end(), hi) - p.begin();
        if (!bos_in[c] && a[c] == b[c]) continue;
        dot(Qm.row(i), Km.row(rep[c]), dh, score[c], t);
        if (best < 0 || score[c] > score[best]) best = c;
      }
      // Second best value below the best, and the members of the argmax set.
      long count = 0;
      std::fill(out.row(i), out.row(i) + dv, Q(0));
      for (int c = 0; c < classes; ++c) {
        if (!bos_in[c] && a[c] == b[c]) continue;
        if (score[c] == score[best]) {
          count += static_cast<long>(b[c] - a[c]) + (bos_in[c] ? 1 : 0);
          for (int e = 0; e < dv; ++e) {
            out.row(i)[e] += cum[c].row(b[c])[e] - cum[c].row(a[c])[e];
            if (bos_in[c]) out.row(i)[e] += V.row(0)[e];
          }
        } else if (second < 0 || score[c] > score[second]) {
          second = c;
        }
      }
      for (int e = 0; e < dv; ++e) out.row(i)[e] /= Q(count);
      if (second < 0) rs.uniform();
      else rs.row(score[best] - score[second], static_cast<std::size_t>(count));
    }
  }

  // Keys with many distinct values: scores screened in double with a rigorous
  // rounding bound; only keys that may be the best or the second best are
  // scored exactly.
  void screened_rows(const HeadPrep& hp, const QMat& Qm, const QMat& Km, const QMat& V, QMat& out,
                     RowStats& rs) const {
    const std::int64_t n_pos = Qm.rows;
    const int dh = hp.q.out, dv = hp.v.out;
    Matrix Qd(n_pos, dh), Kd(n_pos, dh);
    for (std::int64_t j = 0; j < n_pos; ++j) {
      for (int l = 0; l < dh; ++l) {
        Qd(j, l) = Qm.row(j)[l].get_d();
        Kd(j, l) = Km.row(j)[l].get_d();
      }
    }
    // |double score - exact score| <= rel * sum_l |q_l k_l| + tiny: conversion
    // (each factor within 2^-52), product and summation rounding.
    const double rel = (dh + 4) * std::ldexp(1.0, -52) * 1.01, tiny = 1e-290;
    std::vector<double> sd(n_pos), se(n_pos);
    std::vector<std::int64_t> stamp(n_pos, -1);
    std::vector<std::int64_t> vis;
    std::vector<std::pair<std::int64_t, Q>> exact;  // (key, exact score) computed for this row
    Q s, t;
    for (std::int64_t i = 0; i < n_pos; ++i) {
      auto [lo, hi] = visible_range(hp.mask, i, n_pos);
      vis.clear();
      vis.push_back(0);
      for (std::int64_t j = lo; j < hi; ++j) vis.push_back(j);
      double lo_max = -std::numeric_limits<double>::infinity();
      bool finite = true;
      for (std::int64_t j : vis) {
        double v = 0, m = 0;
        for (int l = 0; l < dh; ++l) {
          v += Qd(i, l) * Kd(j, l);
          m += std::abs(Qd(i, l) * Kd(j, l));
        }
        sd[j] = v;
        se[j] = rel * m + tiny;
        if (!std::isfinite(v) || !std::isfinite(se[j])) finite = false;
        lo_max = std::max(lo_max, v - se[j]);
      }
      exact.clear();
      auto score_exactly = [&](std::int64_t j) {
        stamp[j] = i;
        dot(Qm.row(i), Km.row(j), dh, s, t);
        exact.emplace_back(j, s);
      };
      for (std::int64_t j : vis) {
        if (!finite || sd[j] + se[j] >= lo_max) score_exactly(j);
      }
      Q best = exact[0].second;
      for (const auto& [j, v] : exact) best = std::max(best, v);
      // The best score outside the argmax set: first among the exact ones,
      // then any key whose screened score could still reach it.
      bool has2 = false;
      Q second;
      for (const auto& [j, v] : exact) {
        if (v != best && (!has2 || v > second)) {
          second = v;
          has2 = true;
        }
      }
      double lb = has2 ? second.get_d() : -std::numeric_limits<double>::infinity();
      for (std::int64_t j : vis) {
        if (stamp[j] != i) lb = std::max(lb, sd[j] - se[j]);
      }
      const std::size_t first_pass = exact.size();
      for (std::int64_t j : vis) {
        if (stamp[j] != i && sd[j] + se[j] >= lb) score_exactly(j);
      }
      for (std::size_t e = first_pass; e < exact.size(); ++e) {
        const Q& v = exact[e].second;
        if (v >= best) throw std::logic_error("exact AHAT: screening missed the best score");
        if (!has2 || v > second) {
          second = v;
          has2 = true;
        }
      }
      long count = 0;
      std::fill(out.row(i), out.row(i) + dv, Q(0));
      for (const auto& [j, v] : exact) {
        if (v != best) continue;
        ++count;
        for (int e = 0; e < dv; ++e) out.row(i)[e] += V.row(j)[e];
      }
      for (int e = 0; e < dv; ++e) out.row(i)[e] /= Q(count);
      if (!has2) rs.uniform();
      else rs.row(best - second, static_cast<std::size_t>(count));
    }
  }

  ExactRun run(std::string_view word) const {
    const ModelConfig& cfg = model.config;
    const std::int64_t n = static_cast<std::int64_t>(word.size()), n_pos = n + 1;
    const int d = cfg.d_model;
    QMat X(n_pos, d);
    const int width = cfg.position_width();
    std::vector<Q> phi(width);
    for (std::int64_t j = 0; j < n_pos; ++j) {
      int tok = 0;
      if (j > 0) {
        tok = model.token(word[j - 1]);
        if (tok < 0) {
          throw std::invalid_argument(
              fmt::format("symbol 0x{:02x} at {} is not in the model's alphabet",
                          static_cast<unsigned char>(word[j - 1]), j));
        }
      }
      int off = 0;
      for (const PositionFeature& f : cfg.position_features) {
        exact_feature(f, j, n, phi.data() + off);
        off += f.width();
      }
      for (int c = 0; c < d; ++c) {
        Q v(model.embed(tok, c));
        for (int f = 0; f < width; ++f) {
          if (model.pos_proj(c, f) != 0.0 && sgn(phi[f]) != 0) v += Q(model.pos_proj(c, f)) * phi[f];
        }
        X.row(j)[c] = v;
      }
    }
    ExactRun result;
    for (std::size_t l = 0; l < layers.size(); ++l) {
      const LayerPrep& lp = layers[l];
      double r = 0;
      for (std::int64_t i = 0; i < n_pos; ++i) {
        double s2 = 0;
        for (int c = 0; c < d; ++c) s2 += std::pow(X.row(i)[c].get_d(), 2);
        r = std::max(r, std::sqrt(s2));
      }
      result.input_norms.push_back(r);
      QMat delta(n_pos, d);
      for (std::size_t h = 0; h < lp.heads.size(); ++h) {
        HeadGap stats;
        stats.layer = static_cast<int>(l);
        stats.head = static_cast<int>(h);
        stats.uniform_head = lp.heads[h].uniform;
        QMat out(0, 0);
        head(lp.heads[h], X, out, stats);
        std::vector<Q> y(d);
        for (std::int64_t i = 0; i < n_pos; ++i) {
          lp.heads[h].o.apply(out.row(i), y.data());
          for (int c = 0; c < d; ++c) delta.row(i)[c] += y[c];
        }
        result.heads.push_back(stats);
      }
      for (std::size_t e = 0; e < X.data.size(); ++e) X.data[e] += delta.data[e];
      // Residual FFN: x += fc2 ReLU(fc1 x + b1) + b2.
      const int hidden = lp.fc1.out;
      std::vector<Q> hvec(hidden), y(d);
      for (std::int64_t i = 0; i < n_pos; ++i) {
        if (hidden > 0) {
          lp.fc1.apply(X.row(i), hvec.data());
          for (int u = 0; u < hidden; ++u) {
            hvec[u] += lp.b1[u];
            if (sgn(hvec[u]) < 0) hvec[u] = 0;
          }
          lp.fc2.apply(hvec.data(), y.data());
          for (int c = 0; c < d; ++c) X.row(i)[c] += y[c];
        }
        for (int c = 0; c < d; ++c) X.row(i)[c] += lp.b2[c];
      }
    }
    const Q y = X.row(n)[cfg.readout.coordinate];
    const Q theta(cfg.readout.threshold);
    result.accepted = y >= theta;
    result.y = y.get_d();
    result.output_margin = Q(abs(Q(y - theta))).get_d();
    result.states.resize(n_pos, d);
    for (std::int64_t i = 0; i < n_pos; ++i) {
      for (int c = 0; c < d; ++c) result.states(i, c) = X.row(i)[c].get_d();
    }
    return result;
  }
};

ExactAhat::ExactAhat(const Transformer& model) : impl_(std::make_unique<Impl>(model)) {}
ExactAhat::~ExactAhat() = default;
ExactAhat::ExactAhat(ExactAhat&&) noexcept = default;
ExactRun ExactAhat::run(std::string_view word) const { return impl_->run(word); }

}  // namespace softhat::model
