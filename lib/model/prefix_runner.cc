#include "model/prefix_runner.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "model/attention.h"

namespace softhat::model {

bool PrefixRunner::applies(const Transformer& model) {
  for (const LayerConfig& l : model.config.layers) {
    for (const HeadConfig& h : l.heads) {
      if (h.mask != Mask::kFuture && h.mask != Mask::kStrictFuture) return false;
    }
  }
  return true;
}

PrefixRunner::PrefixRunner(const Transformer& model, std::size_t n, std::optional<BetaSchedule> beta)
    : model_(model), n_(n) {
  const ModelConfig& cfg = model.config;
  beta_ = (beta ? *beta : cfg.beta).at(static_cast<std::int64_t>(n));
  const std::int64_t rows = static_cast<std::int64_t>(n) + 1;
  const int width = cfg.position_width();
  phi_.resize(rows, width);
  std::vector<double> buf(static_cast<std::size_t>(width));
  for (std::int64_t j = 0; j < rows; ++j) {
    int off = 0;
    for (const PositionFeature& f : cfg.position_features) {
      f.evaluate(j, static_cast<std::int64_t>(n), buf.data() + off);
      off += f.width();
    }
    for (int c = 0; c < width; ++c) phi_(j, c) = buf[static_cast<std::size_t>(c)];
  }
  x_.assign(cfg.layers.size() + 1, Matrix::Zero(rows, cfg.d_model));
  for (std::size_t l = 0; l < cfg.layers.size(); ++l) {
    k_.emplace_back();
    v_.emplace_back();
    for (const HeadConfig& h : cfg.layers[l].heads) {
      k_[l].push_back(Matrix::Zero(rows, h.d_head));
      v_[l].push_back(Matrix::Zero(rows, h.d_value));
    }
  }
  scores_.assign(static_cast<std::size_t>(rows), 0.0);
  mass_.assign(static_cast<std::size_t>(rows), 1.0);
  gap_.assign(static_cast<std::size_t>(rows), kNoGap);
  compute_row(0, 0);  // BOS
}

void PrefixRunner::compute_row(std::int64_t i, int token) {
  const ModelConfig& cfg = model_.config;
  Vector& x = x_row_;
  x.noalias() = model_.embed.row(token);
  x.noalias() += phi_.row(i) * model_.pos_proj.transpose();
  double mass = 1.0, gap = kNoGap;
  for (std::size_t l = 0; l < cfg.layers.size(); ++l) {
    const LayerWeights& lw = model_.layers[l];
    x_[l].row(i) = x;
    delta_.setZero(cfg.d_model);
    for (std::size_t h = 0; h < lw.heads.size(); ++h) {
      const HeadWeights& hw = lw.heads[h];
      q_.noalias() = x * hw.q.transpose();
      k_[l][h].row(i).noalias() = x * hw.k.transpose();
      v_[l][h].row(i).noalias() = x * hw.v.transpose();
      // Visible keys: BOS, then 1..i (future) or 1..i-1 (strict future).
      const std::int64_t last = cfg.layers[l].heads[h].mask == Mask::kFuture ? i : i - 1;
      const std::int64_t count = std::max<std::int64_t>(last, 0) + 1;
      ArgmaxTracker top;
      for (std::int64_t j = 0; j < count; ++j) {
        const double sj = q_.dot(k_[l][h].row(j));
        if (std::isnan(sj)) {
          throw std::runtime_error(fmt::format("layer {} head {}: attention row of position {} has a NaN score", l, h, i));
        }
        scores_[static_cast<std::size_t>(j)] = sj;
        top.add(sj);
      }
      const double best = top.best;
      double z = 0;
      acc_.setZero(hw.v.rows());
      for (std::int64_t j = 0; j < count; ++j) {
        const double sj = scores_[static_cast<std::size_t>(j)];
        const double e = beta_ * (sj - best);
        const double w = e < -700.0 ? 0.0 : std::exp(e);
        z += w;
        if (w != 0.0) acc_ += w * v_[l][h].row(j);
      }
      if (!(z > 0) || !std::isfinite(beta_ * best)) {
        throw std::runtime_error(fmt::format("layer {} head {}: attention row of position {} has no finite score", l, h, i));
      }
      acc_ /= z;
      delta_.noalias() += acc_ * hw.o.transpose();
      mass = std::min(mass, top.ties / z);
      gap = std::min(gap, top.gap());
    }
    x += delta_;
    if (lw.fc1.rows() > 0) {
      hidden_.noalias() = x * lw.fc1.transpose();
      hidden_ = (hidden_ + lw.b1).cwiseMax(0.0);
      out_.noalias() = hidden_ * lw.fc2.transpose();
      x += out_ + lw.b2;
    } else {
      x += lw.b2;
    }
  }
  x_[cfg.layers.size()].row(i) = x;
  const std::size_t at = static_cast<std::size_t>(i);
  mass_[at] = i == 0 ? mass : std::min(mass_[at - 1], mass);
  gap_[at] = i == 0 ? gap : std::min(gap_[at - 1], gap);
}

RunResult PrefixRunner::run(std::string_view word) {
  if (word.size() != n_) throw std::invalid_argument(fmt::format("the runner is for words of length {}", n_));
  std::size_t common = 0;
  while (common < prefix_.size() && prefix_[common] == word[common]) ++common;
  prefix_.resize(common);
  tokens_.resize(common);
  for (std::size_t p = common; p < n_; ++p) {
    const int tok = model_.token(word[p]);
    if (tok < 0) {
      prefix_.clear();
      tokens_.clear();
      throw std::invalid_argument(fmt::format("symbol 0x{:02x} at {} is not in the model's alphabet",
                                              static_cast<unsigned char>(word[p]), p + 1));
    }
    compute_row(static_cast<std::int64_t>(p) + 1, tok);
    prefix_.push_back(word[p]);
    tokens_.push_back(tok);
  }
  const ModelConfig& cfg = model_.config;
  RunResult r;
  r.beta = beta_;
  r.y = x_[cfg.layers.size()](static_cast<Eigen::Index>(n_), cfg.readout.coordinate);
  r.accepted = r.y >= cfg.readout.threshold;
  r.output_margin = std::abs(r.y - cfg.readout.threshold);
  MarginStats m;
  m.min_target_mass = mass_[n_];
  m.min_gap = gap_[n_];
  m.min_scaled_gap = gap_[n_] < kNoGap ? beta_ * gap_[n_] : kNoGap;
  std::int64_t heads = 0;
  for (const LayerConfig& l : cfg.layers) heads += static_cast<std::int64_t>(l.heads.size());
  m.rows = heads * static_cast<std::int64_t>(n_ + 1);
  r.margins = m;
  return r;
}

}  // namespace softhat::model
