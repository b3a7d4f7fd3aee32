#include "model/forward.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "util/symbols.h"

namespace softhat::model {

void MarginStats::add_row(double target_mass, double gap, double beta) {
  ++rows;
  min_target_mass = std::min(min_target_mass, target_mass);
  if (gap < kNoGap) {  // no gap when every visible score ties (the second best is -inf)
    min_gap = std::min(min_gap, gap);
    min_scaled_gap = std::min(min_scaled_gap, beta * gap);
  }
}

void MarginStats::merge(const MarginStats& o) {
  min_target_mass = std::min(min_target_mass, o.min_target_mass);
  min_gap = std::min(min_gap, o.min_gap);
  min_scaled_gap = std::min(min_scaled_gap, o.min_scaled_gap);
  rows += o.rows;
}

namespace {

using MatD = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
constexpr double kNegInf = -std::numeric_limits<double>::infinity();

bool visible(Mask mask, std::int64_t i, std::int64_t j) { return key_visible(mask, i, j); }

}  // namespace

bool key_visible(Mask mask, std::int64_t i, std::int64_t j) {
  if (j == 0) return true;  // BOS is visible under every mask
  switch (mask) {
    case Mask::kNone: return true;
    case Mask::kStrictFuture: return j < i;
    case Mask::kFuture: return j <= i;
    case Mask::kStrictPast: return j > i;
    case Mask::kPast: return j >= i;
  }
  return false;
}

namespace {

// Whether every (query, key) pair of a block is visible: then the block needs
// no per-element masking.
bool fully_visible(Mask mask, std::int64_t i0, std::int64_t i1, std::int64_t j0, std::int64_t j1) {
  if (j0 == 0 && j1 == 1) return true;
  switch (mask) {
    case Mask::kNone: return true;
    case Mask::kStrictFuture: return j1 - 1 < i0;
    case Mask::kFuture: return j1 - 1 <= i0;
    case Mask::kStrictPast: return j0 > i1 - 1;
    case Mask::kPast: return j0 >= i1 - 1;
  }
  return false;
}

// The key blocks a query block [i0, i1) needs: BOS, then the visible range.
struct KeyRange {
  std::int64_t lo, hi;  // visible non-BOS keys are within [lo, hi)
};
KeyRange key_range(Mask mask, std::int64_t i0, std::int64_t i1, std::int64_t n_pos) {
  switch (mask) {
    case Mask::kNone: return {1, n_pos};
    case Mask::kStrictFuture: return {1, std::max<std::int64_t>(1, i1 - 1)};
    case Mask::kFuture: return {1, i1};
    case Mask::kStrictPast: return {i0 + 1, n_pos};
    case Mask::kPast: return {std::max<std::int64_t>(1, i0), n_pos};
  }
  return {1, n_pos};
}

[[noreturn]] void bad_row(int layer, int head, std::int64_t i, const char* what) {
  throw std::runtime_error(
      fmt::format("layer {} head {}: attention row of position {} {}", layer, head, i, what));
}

// One attention head over all positions. Q, K, V are double (scores and
// weighted sums accumulate in double in every precision).
struct Attention {
  using ArrD = Eigen::Array<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  using ColD = Eigen::Array<double, Eigen::Dynamic, 1>;
  const MatD& Q;
  const MatD& K;
  const MatD& V;
  const HeadConfig& head;
  AttentionMode mode;
  double beta;
  int layer, head_index;
  int qb, kb;
  bool linear_scan;
  MarginStats* stats;  // null when not tracing

  // Buffers reused across heads and words (one per thread).
  struct Scratch {
    std::vector<std::int32_t> qcls, kcls;
    MatD qreps, kreps;
  };
  Scratch& scratch;

  void run(MatD& out) const {
    const std::int64_t n_pos = Q.rows();
    const Eigen::Index dv = V.cols();
    out.setZero(n_pos, dv);
    if (linear_scan) {
      // Linear-time paths, chosen from the weights' effect on this word alone:
      // few distinct queries (per-class online softmax) or few distinct keys
      // (per-class running sums), whichever has fewer classes.
      std::vector<std::int32_t>& qcls = scratch.qcls;
      std::vector<std::int32_t>& kcls = scratch.kcls;
      MatD& qreps = scratch.qreps;
      MatD& kreps = scratch.kreps;
      const bool few_queries = row_classes(Q, kMaxQueryClasses, qcls, qreps);
      const bool few_keys = row_classes(K, kMaxKeyClasses, kcls, kreps);
      if (few_queries && (!few_keys || qreps.rows() <= kreps.rows())) {
        scan(out, qcls, qreps);
        return;
      }
      if (few_keys) {
        class_scan(out, kcls, kreps);
        return;
      }
    }
    for (std::int64_t i0 = 0; i0 < n_pos; i0 += qb) {
      const std::int64_t i1 = std::min<std::int64_t>(n_pos, i0 + qb);
      const std::int64_t rows = i1 - i0;
      // Per-row running state: max logit m, sum l, accumulator acc; for
      // margins and hard attention the best raw score, its multiplicity
      // (ties), the best score below it (second) and the chosen key.
      ColD m = ColD::Constant(rows, kNegInf), l = ColD::Zero(rows);
      MatD acc = MatD::Zero(rows, dv);
      std::vector<double> best(rows, kNegInf), second(rows, kNegInf), ties(rows, 0.0);
      std::vector<std::int64_t> chosen(rows, -1);

      auto process = [&](std::int64_t j0, std::int64_t j1) {
        if (j1 <= j0) return;
        const std::int64_t cols = j1 - j0;
        S = (Q.middleRows(i0, rows) * K.middleRows(j0, cols).transpose()).array();
        if (S.hasNaN()) bad_row(layer, head_index, i0, "has a NaN score");
        if (!fully_visible(head.mask, i0, i1, j0, j1)) {
          for (std::int64_t r = 0; r < rows; ++r) {
            for (std::int64_t c = 0; c < cols; ++c) {
              if (!visible(head.mask, i0 + r, j0 + c)) S(r, c) = kNegInf;
            }
          }
        }
        if (mode == AttentionMode::kHard) {
          hard_update(j0, best, ties, chosen, acc);
          return;
        }
        if (stats) trace_update(best, second, ties);
        // Online softmax over the block, vectorized across rows and columns.
        ArrD L = beta * S;
        const ColD block_max = L.rowwise().maxCoeff();
        if ((block_max == std::numeric_limits<double>::infinity()).any()) {
          bad_row(layer, head_index, i0, "overflows (a logit is infinite)");
        }
        const ColD new_m = m.max(block_max);
        // Rows with no visible key so far keep a placeholder 0, so that
        // exp(-inf - 0) = 0 instead of NaN.
        const ColD shift = (new_m == kNegInf).select(ColD::Zero(rows), new_m);
        const ColD scale = (m - shift).exp();
        for (std::int64_t r = 0; r < rows; ++r) {
          // Row by row: a contiguous row minus a scalar is what Eigen's
          // vectorized exp accepts (a broadcast column is not).
          // Weights below e^-700 (~1e-304) are set to exactly 0: they cannot
          // change a double sum of terms <= 1 by one ulp, and letting them
          // become subnormal makes every later operation on them ~100x slower.
          auto row = L.row(r);
          row -= shift(r);
          row = (row < -700.0).select(0.0, row.exp());
        }
        l = l * scale + L.rowwise().sum();
        acc = (acc.array().colwise() * scale).matrix() + L.matrix() * V.middleRows(j0, cols);
        m = new_m;
      };
      process(0, 1);  // BOS
      const KeyRange range = key_range(head.mask, i0, i1, n_pos);
      for (std::int64_t j0 = range.lo; j0 < range.hi; j0 += kb) process(j0, std::min(range.hi, j0 + kb));

      for (std::int64_t r = 0; r < rows; ++r) {
        const std::int64_t i = i0 + r;
        if (mode == AttentionMode::kHard) {
          if (chosen[r] < 0) bad_row(layer, head_index, i, "has no finite score");
          if (head.hard == HardKind::kAverage) out.row(i) = acc.row(r) / ties[r];
          else out.row(i) = V.row(chosen[r]);
          continue;
        }
        if (!(l(r) > 0) || !std::isfinite(m(r))) bad_row(layer, head_index, i, "has no finite score");
        out.row(i) = acc.row(r) / l(r);
        // Every maximal score has weight exp(0)/l; the rest is the leak.
        if (stats) stats->add_row(ties[r] / l(r), best[r] - second[r], beta);
      }
    }
  }

  // Queries take at most kMaxQueryClasses distinct values (exactly; compiled
  // heads read 0/1 coordinates): per class, one online softmax (running
  // maximum, sum and accumulator, the blocked path's numerics) over the keys
  // in mask order, so a row costs O(classes) and the head O(n * classes * d).
  static constexpr std::size_t kMaxQueryClasses = 16;
  void scan(MatD& out, const std::vector<std::int32_t>& qcls, const MatD& qreps) const {
    struct State {
      double m = kNegInf, l = 0, best = kNegInf, second = kNegInf, ties = 0;
      std::int64_t chosen = -1;
      Eigen::RowVectorXd acc;
    };
    std::vector<State> states(static_cast<std::size_t>(qreps.rows()));
    for (State& st : states) st.acc = Eigen::RowVectorXd::Zero(V.cols());
    auto add = [&](std::int64_t j) {
      for (Eigen::Index c = 0; c < qreps.rows(); ++c) {
        State& st = states[static_cast<std::size_t>(c)];
        const double s = qreps.row(c).dot(K.row(j));
        if (std::isnan(s)) bad_row(layer, head_index, j, "has a NaN score");
        if (mode == AttentionMode::kHard || stats) {
          if (s > st.best) {
            if (mode == AttentionMode::kHard && head.hard == HardKind::kAverage) st.acc = V.row(j);
            st.second = st.best;
            st.best = s;
            st.ties = 1;
            st.chosen = j;
          } else if (s == st.best) {
            st.ties += 1;
            // Order-free tie breaking: keys may arrive in either direction.
            if (head.hard == HardKind::kRightmost) st.chosen = std::max(st.chosen, j);
            if (head.hard == HardKind::kLeftmost) st.chosen = std::min(st.chosen, j);
            if (mode == AttentionMode::kHard && head.hard == HardKind::kAverage) st.acc += V.row(j);
          } else if (s > st.second) {
            st.second = s;
          }
        }
        if (mode == AttentionMode::kHard) continue;
        const double logit = beta * s;
        if (logit == std::numeric_limits<double>::infinity()) bad_row(layer, head_index, j, "overflows");
        if (logit > st.m) {
          const double scale = st.m == kNegInf ? 0.0 : std::exp(st.m - logit);
          st.l = st.l * scale + 1.0;
          st.acc = st.acc * scale + V.row(j);
          st.m = logit;
        } else if (logit - st.m >= -700.0) {  // smaller weights are exactly 0 (see process())
          const double p = std::exp(logit - st.m);
          st.l += p;
          st.acc += p * V.row(j);
        }
      }
    };
    auto emit = [&](std::int64_t i) {
      const State& st = states[static_cast<std::size_t>(qcls[i])];
      if (mode == AttentionMode::kHard) {
        if (st.chosen < 0) bad_row(layer, head_index, i, "has no finite score");
        out.row(i) = head.hard == HardKind::kAverage ? Eigen::RowVectorXd(st.acc / st.ties)
                                                     : Eigen::RowVectorXd(V.row(st.chosen));
        return;
      }
      if (!(st.l > 0) || !std::isfinite(st.m)) bad_row(layer, head_index, i, "has no finite score");
      out.row(i) = st.acc / st.l;
      if (stats) stats->add_row(st.ties / st.l, st.best - st.second, beta);
    };
    sweep(add, emit);
  }

  // Visits keys in mask order and emits each row once its visible keys are
  // all added: prefix order for future masks, suffix order for past masks.
  template <typename Add, typename Emit>
  void sweep(Add&& add, Emit&& emit) const {
    const std::int64_t n_pos = Q.rows();
    add(0);  // BOS, visible everywhere
    switch (head.mask) {
      case Mask::kStrictFuture:  // row i sees {0} and 1..i-1
        for (std::int64_t i = 0; i < n_pos; ++i) {
          if (i >= 2) add(i - 1);
          emit(i);
        }
        break;
      case Mask::kFuture:  // row i sees 0..i
        for (std::int64_t i = 0; i < n_pos; ++i) {
          if (i >= 1) add(i);
          emit(i);
        }
        break;
      case Mask::kStrictPast:  // row i sees {0} and i+1..n
        for (std::int64_t i = n_pos - 1; i >= 0; --i) {
          emit(i);
          if (i >= 1) add(i);
        }
        break;
      case Mask::kPast:  // row i sees {0} and i..n
        for (std::int64_t i = n_pos - 1; i >= 1; --i) {
          add(i);
          emit(i);
        }
        emit(0);
        break;
      case Mask::kNone:
        for (std::int64_t j = 1; j < n_pos; ++j) add(j);
        for (std::int64_t i = 0; i < n_pos; ++i) emit(i);
        break;
    }
  }

  // Keys take at most kMaxKeyClasses distinct values (exactly): then each row's
  // softmax only needs, per class, how many visible keys it has and the sum of
  // their values, kept as running sums in mask order: O(n * classes).
  static constexpr std::size_t kMaxKeyClasses = 16;
  // The distinct rows of M (exact equality), at most `limit` of them: the
  // class of every row and one representative per class; false if more.
  static bool row_classes(const MatD& M, std::size_t limit, std::vector<std::int32_t>& cls, MatD& reps) {
    std::vector<Eigen::Index> rep_rows;
    cls.resize(static_cast<std::size_t>(M.rows()));
    for (Eigen::Index j = 0; j < M.rows(); ++j) {
      std::int32_t c = -1;
      for (std::size_t r = 0; r < rep_rows.size() && c < 0; ++r) {
        if (M.row(j) == M.row(rep_rows[r])) c = static_cast<std::int32_t>(r);
      }
      if (c < 0) {
        if (rep_rows.size() >= limit) return false;
        c = static_cast<std::int32_t>(rep_rows.size());
        rep_rows.push_back(j);
      }
      cls[static_cast<std::size_t>(j)] = c;
    }
    reps.resize(static_cast<Eigen::Index>(rep_rows.size()), M.cols());
    for (std::size_t r = 0; r < rep_rows.size(); ++r) reps.row(static_cast<Eigen::Index>(r)) = M.row(rep_rows[r]);
    return true;
  }

  void class_scan(MatD& out, const std::vector<std::int32_t>& cls, const MatD& reps) const {
    const std::size_t classes = static_cast<std::size_t>(reps.rows());
    std::vector<double> count(classes, 0.0);
    std::vector<std::int64_t> lo(classes, std::numeric_limits<std::int64_t>::max()), hi(classes, -1);
    MatD sum = MatD::Zero(static_cast<Eigen::Index>(classes), V.cols());
    std::vector<double> score(classes);
    auto add = [&](std::int64_t j) {
      const std::int32_t c = cls[j];
      count[c] += 1;
      lo[c] = std::min(lo[c], j);
      hi[c] = std::max(hi[c], j);
      sum.row(c) += V.row(j);
    };
    auto emit = [&](std::int64_t i) {
      double best = kNegInf, second = kNegInf;
      for (std::size_t c = 0; c < classes; ++c) {
        if (count[c] == 0) continue;
        score[c] = Q.row(i).dot(reps.row(static_cast<Eigen::Index>(c)));
        if (std::isnan(score[c])) bad_row(layer, head_index, i, "has a NaN score");
        if (score[c] > best) {
          second = best;
          best = score[c];
        } else if (score[c] < best && score[c] > second) {
          second = score[c];
        }
      }
      if (best == kNegInf) bad_row(layer, head_index, i, "has no finite score");
      if (mode == AttentionMode::kHard) {
        double ties = 0;
        std::int64_t chosen = -1;
        Eigen::RowVectorXd acc = Eigen::RowVectorXd::Zero(V.cols());
        for (std::size_t c = 0; c < classes; ++c) {
          if (count[c] == 0 || score[c] != best) continue;
          ties += count[c];
          acc += sum.row(static_cast<Eigen::Index>(c));
          if (head.hard == HardKind::kRightmost) chosen = std::max(chosen, hi[c]);
          if (head.hard == HardKind::kLeftmost) chosen = chosen < 0 ? lo[c] : std::min(chosen, lo[c]);
        }
        out.row(i) = head.hard == HardKind::kAverage ? Eigen::RowVectorXd(acc / ties) : Eigen::RowVectorXd(V.row(chosen));
        return;
      }
      const double m = beta * best;
      if (!std::isfinite(m)) bad_row(layer, head_index, i, "overflows (a logit is infinite)");
      double l = 0, ties = 0;
      Eigen::RowVectorXd acc = Eigen::RowVectorXd::Zero(V.cols());
      for (std::size_t c = 0; c < classes; ++c) {
        if (count[c] == 0) continue;
        const double x = beta * score[c] - m;
        const double p = x < -700.0 ? 0.0 : std::exp(x);
        l += count[c] * p;
        acc += p * sum.row(static_cast<Eigen::Index>(c));
        if (score[c] == best) ties += count[c];
      }
      out.row(i) = acc / l;
      if (stats) stats->add_row(ties / l, best - second, beta);
    };
    sweep(add, emit);
  }

  // Exact argmax bookkeeping for margins: best score, its multiplicity, and
  // the best score strictly below it.
  void trace_update(std::vector<double>& best, std::vector<double>& second, std::vector<double>& ties) const {
    for (Eigen::Index r = 0; r < S.rows(); ++r) {
      for (Eigen::Index c = 0; c < S.cols(); ++c) {
        const double v = S(r, c);
        if (v == kNegInf) continue;
        if (v > best[r]) {
          second[r] = best[r];
          best[r] = v;
          ties[r] = 1;
        } else if (v == best[r]) {
          ties[r] += 1;
        } else if (v > second[r]) {
          second[r] = v;
        }
      }
    }
  }

  void hard_update(std::int64_t j0, std::vector<double>& best, std::vector<double>& ties,
                   std::vector<std::int64_t>& chosen, MatD& acc) const {
    for (Eigen::Index r = 0; r < S.rows(); ++r) {
      for (Eigen::Index c = 0; c < S.cols(); ++c) {
        const double v = S(r, c);
        if (v == kNegInf) continue;
        const std::int64_t j = j0 + c;
        if (v > best[r]) {
          best[r] = v;
          chosen[r] = j;
          ties[r] = 1;
          if (head.hard == HardKind::kAverage) acc.row(r) = V.row(j);
        } else if (v == best[r]) {
          // Keys arrive in increasing j: the rightmost tie is the latest.
          if (head.hard == HardKind::kRightmost) chosen[r] = std::max(chosen[r], j);
          ties[r] += 1;
          if (head.hard == HardKind::kAverage) acc.row(r) += V.row(j);
        }
      }
    }
  }

  mutable ArrD S = {};
};

// A weight matrix W (out x in) applied to row-major activations, X W^T.
// Compiled weights are mostly zeros (a head reads one or two 0/1
// coordinates) and their products have a few dozen rows: there a product
// over the nonzeros (n * nnz multiply-adds) beats the dense GEMM, whose
// packing dominates tiny products. Written by hand because Eigen's
// dense x sparse product walks a row-major X column by column and zero-fills
// its result first (measured ~2x slower than this loop at n = 64). Chosen from
// the weights alone; dense models keep the GEMM.
template <typename S>
struct Linear {
  using Mat = Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  struct Entry {
    Eigen::Index out, in;
    S w;
  };
  Mat dense;
  std::vector<Entry> entries;  // the nonzeros in row-major order of W (sparse only)
  bool use_sparse = false;

  Linear() = default;
  explicit Linear(const Mat& w) : dense(w) {
    for (Eigen::Index r = 0; r < w.rows(); ++r) {
      for (Eigen::Index c = 0; c < w.cols(); ++c) {
        if (w(r, c) != S(0)) entries.push_back({r, c, w(r, c)});
      }
    }
    // A quarter dense or sparser: n * nnz multiply-adds against the GEMM's
    // n * rows * cols plus packing.
    use_sparse = w.size() > 0 && 4 * static_cast<Eigen::Index>(entries.size()) <= w.size();
    if (!use_sparse) entries.clear();
  }
  Eigen::Index rows() const { return dense.rows(); }
  // y = x W^T (y resized; its storage is reused when the size is unchanged).
  template <typename In>
  void apply(const In& x, Mat& y) const {
    if (!use_sparse) {
      y.noalias() = x * dense.transpose();
      return;
    }
    y.setZero(x.rows(), dense.rows());
    add(x, y);
  }
  // y += x W^T.
  template <typename In>
  void add(const In& x, Mat& y) const {
    if (!use_sparse) {
      y.noalias() += x * dense.transpose();
      return;
    }
    for (Eigen::Index i = 0; i < x.rows(); ++i) {
      for (const Entry& e : entries) y(i, e.out) += e.w * x(i, e.in);
    }
  }
};

template <typename T>
struct Prepared {
  using MatT = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  using VecT = Eigen::Matrix<T, 1, Eigen::Dynamic, Eigen::RowMajor>;
  struct Head {
    Linear<double> q, k;  // scores are accumulated in double
    Linear<T> v, o;
  };
  struct Layer {
    std::vector<Head> heads;
    Linear<T> fc1, fc2;
    VecT b1, b2;
    // Compiled models write a few residual columns per layer. When every
    // output matrix is sparse, the layer only touches the columns some head,
    // FFN row or bias writes (`touched`, sorted); the others receive exactly
    // +0 in the dense reference, so skipping them changes no value.
    bool narrow = false;
    std::vector<Eigen::Index> head_cols, touched;
  };
  MatT embed;
  Linear<T> pos_proj;
  std::vector<Layer> layers;

  explicit Prepared(const Transformer& t) {
    embed = t.embed.cast<T>();
    pos_proj = Linear<T>(t.pos_proj.cast<T>());
    for (const LayerWeights& lw : t.layers) {
      Layer layer;
      for (const HeadWeights& hw : lw.heads) {
        layer.heads.push_back({Linear<double>(hw.q), Linear<double>(hw.k), Linear<T>(hw.v.cast<T>()),
                               Linear<T>(hw.o.cast<T>())});
      }
      layer.fc1 = Linear<T>(lw.fc1.cast<T>());
      layer.fc2 = Linear<T>(lw.fc2.cast<T>());
      layer.b1 = lw.b1.cast<T>();
      layer.b2 = lw.b2.cast<T>();
      layer.narrow = layer.fc1.rows() == 0 || layer.fc2.use_sparse;
      std::vector<char> head_col(static_cast<std::size_t>(t.config.d_model), 0), any(head_col);
      for (const Head& h : layer.heads) {
        layer.narrow = layer.narrow && h.o.use_sparse;
        for (const auto& e : h.o.entries) head_col[e.out] = any[e.out] = 1;
      }
      if (layer.fc1.rows() > 0) {
        for (const auto& e : layer.fc2.entries) any[e.out] = 1;
      }
      for (Eigen::Index c = 0; c < layer.b2.size(); ++c) {
        if (layer.b2(c) != T(0)) any[c] = 1;
      }
      for (std::size_t c = 0; c < head_col.size(); ++c) {
        if (head_col[c]) layer.head_cols.push_back(static_cast<Eigen::Index>(c));
        if (any[c]) layer.touched.push_back(static_cast<Eigen::Index>(c));
      }
      layers.push_back(std::move(layer));
    }
  }

  // Per-thread buffers: repeated words of one length allocate nothing.
  struct Workspace {
    std::vector<int> tokens;
    std::vector<double> buf;
    MatT phi, X, delta, H, V_t, out_t;
    MatD cast_copy, Q, K, V, out;
    typename Attention::Scratch scratch;
  };

  RunResult run(const Transformer& t, std::string_view word, const RunOptions& opt) const {
    const ModelConfig& cfg = t.config;
    const std::int64_t n = static_cast<std::int64_t>(word.size());
    if (opt.max_memory > 0) {
      const std::size_t need = word_memory_bytes(t, word.size(), opt);
      if (need > opt.max_memory) {
        auto bytes = [](std::size_t b) {
          if (b >= (std::size_t{1} << 30)) return fmt::format("{:.1f} GiB", static_cast<double>(b) / (1 << 30));
          if (b >= (std::size_t{1} << 20)) return fmt::format("{:.1f} MiB", static_cast<double>(b) / (1 << 20));
          if (b >= (std::size_t{1} << 10)) return fmt::format("{:.1f} KiB", static_cast<double>(b) / (1 << 10));
          return fmt::format("{} bytes", b);
        };
        throw std::invalid_argument(
            fmt::format("a word of {} symbols needs about {} in the engine, over the limit of {} (raise --max-memory)",
                        word.size(), bytes(need), bytes(opt.max_memory)));
      }
    }
    thread_local Workspace ws;
    const std::int64_t n_pos = n + 1;
    // Buffers of long words are given back when the word is done (or fails),
    // so memory stays proportional to the word being run.
    struct Release {
      Workspace& ws;
      bool big;
      ~Release() {
        if (big) ws = Workspace{};
      }
    } release{ws, n_pos > 4096};
    std::vector<int>& tokens = ws.tokens;
    tokens.assign(static_cast<std::size_t>(n_pos), 0);
    for (std::int64_t i = 0; i < n; ++i) {
      const int tok = t.token(word[i]);
      if (tok < 0) {
        throw std::invalid_argument(fmt::format("symbol {} at {} is not in the model's alphabet",
                                                (word[i] > ' ' && word[i] < 0x7f) ||
                                                        (static_cast<unsigned char>(word[i]) >= 0x80 &&
                                                         sym::code_point(word[i]) != 0xFFFD)
                                                    ? fmt::format("'{}'", sym::encode(word[i]))
                                                    : fmt::format("0x{:02x}", static_cast<unsigned char>(word[i])),
                                                i + 1));
      }
      tokens[i + 1] = tok;
    }
    // Embedding: token rows plus projected position features.
    const int width = cfg.position_width();
    MatT& phi = ws.phi;
    phi.resize(n_pos, width);
    ws.buf.resize(static_cast<std::size_t>(width));
    for (std::int64_t j = 0; j < n_pos; ++j) {
      int off = 0;
      for (const PositionFeature& f : cfg.position_features) {
        f.evaluate(j, n, ws.buf.data() + off);
        off += f.width();
      }
      for (int c = 0; c < width; ++c) phi(j, c) = static_cast<T>(ws.buf[c]);
    }
    MatT& X = ws.X;
    pos_proj.apply(phi, X);
    for (std::int64_t j = 0; j < n_pos; ++j) X.row(j) += embed.row(tokens[j]);
    if (!X.allFinite()) throw std::runtime_error("the embedding overflows (a value is infinite or NaN)");
    // A narrow first layer only re-zeroes its own columns of delta: start clean.
    ws.delta.setZero(n_pos, cfg.d_model);

    RunResult result;
    result.beta = (opt.beta ? *opt.beta : cfg.beta).at(n);
    if (opt.trace && opt.mode == AttentionMode::kSoftmax) result.margins = MarginStats{};
    for (std::size_t li = 0; li < layers.size(); ++li) {
      const Layer& layer = layers[li];
      if (opt.keep_layer_inputs) result.layer_inputs.push_back(X.template cast<double>());
      MatT& delta = ws.delta;
      if (layer.narrow && delta.rows() == n_pos && delta.cols() == cfg.d_model) {
        for (Eigen::Index c : layer.head_cols) delta.col(c).setZero();  // the rest is still zero
      } else {
        delta.setZero(n_pos, cfg.d_model);
      }
      // Scores accumulate in double: in float runs the stream is cast once per layer.
      if constexpr (!std::is_same_v<T, double>) ws.cast_copy = X.template cast<double>();
      const MatD& Xd = [&]() -> const MatD& {
        if constexpr (std::is_same_v<T, double>) return X;
        else return ws.cast_copy;
      }();
      for (std::size_t hi = 0; hi < layer.heads.size(); ++hi) {
        const Head& h = layer.heads[hi];
        h.q.apply(Xd, ws.Q);
        h.k.apply(Xd, ws.K);
        if constexpr (std::is_same_v<T, double>) {
          h.v.apply(X, ws.V);
        } else {
          h.v.apply(X, ws.V_t);
          ws.V = ws.V_t.template cast<double>();
        }
        HeadMargins hm{static_cast<int>(li), static_cast<int>(hi), {}};
        HeadConfig head_config = cfg.layers[li].heads[hi];
        if (opt.force_average) head_config.hard = HardKind::kAverage;
        Attention{ws.Q,
                  ws.K,
                  ws.V,
                  head_config,
                  opt.mode,
                  result.beta,
                  static_cast<int>(li),
                  static_cast<int>(hi),
                  std::max(1, opt.query_block),
                  std::max(1, opt.key_block),
                  opt.linear_scan,
                  result.margins ? &hm.stats : nullptr,
                  ws.scratch}
            .run(ws.out);
        if constexpr (std::is_same_v<T, double>) {
          h.o.add(ws.out, delta);
        } else {
          ws.out_t = ws.out.template cast<T>();
          h.o.add(ws.out_t, delta);
        }
        if (result.margins) {
          result.margins->merge(hm.stats);
          result.head_margins.push_back(hm);
        }
      }
      if (layer.narrow) {
        for (Eigen::Index c : layer.head_cols) X.col(c) += delta.col(c);
      } else {
        X += delta;
      }
      if (layer.fc1.rows() > 0) {
        MatT& H = ws.H;
        layer.fc1.apply(X, H);
        H = (H.rowwise() + layer.b1).cwiseMax(T(0));
        layer.fc2.add(H, X);
      }
      bool finite = true;
      if (layer.narrow) {
        for (Eigen::Index c : layer.touched) {
          X.col(c).array() += layer.b2(c);
          finite = finite && X.col(c).allFinite();
        }
      } else {
        X.rowwise() += layer.b2;
        finite = X.allFinite();
      }
      if (!finite) {
        throw std::runtime_error(fmt::format("layer {}: the residual stream overflows (a value is infinite or NaN)", li));
      }
    }
    result.y = static_cast<double>(X(n, cfg.readout.coordinate));
    result.accepted = result.y >= cfg.readout.threshold;
    result.output_margin = std::abs(result.y - cfg.readout.threshold);
    if (cfg.transducer) {
      if constexpr (std::is_same_v<T, double>) {
        result.output = read_transduction(*cfg.transducer, X, &result.min_symbol_margin);
      } else {
        result.output = read_transduction(*cfg.transducer, X.template cast<double>(), &result.min_symbol_margin);
      }
    }
    if (opt.keep_state) {
      result.final_state.resize(cfg.d_model);
      for (int c = 0; c < cfg.d_model; ++c) result.final_state[c] = static_cast<double>(X(n, c));
    }
    if (opt.keep_all_states) result.states = X.template cast<double>();
    return result;
  }
};

}  // namespace

std::size_t word_memory_bytes(const Transformer& t, std::size_t n, const RunOptions& options) {
  const ModelConfig& cfg = t.config;
  // Per position: phi, the residual stream X and its layer delta, the widest
  // FFN layer, one head's Q, K, V and output (double, plus float copies),
  // the token id; plus what the options keep.
  std::size_t ffn = 0, head = 0;
  for (const LayerWeights& lw : t.layers) {
    ffn = std::max<std::size_t>(ffn, static_cast<std::size_t>(lw.fc1.rows()));
    for (const HeadWeights& hw : lw.heads) {
      head = std::max<std::size_t>(head, static_cast<std::size_t>(2 * hw.q.rows() + 2 * hw.k.rows() + 4 * hw.v.rows()));
    }
  }
  const std::size_t d = static_cast<std::size_t>(cfg.d_model);
  std::size_t per_position = 8 * (static_cast<std::size_t>(cfg.position_width()) + 3 * d + ffn + head) + 4;
  if (options.keep_all_states) per_position += 8 * d;
  if (options.keep_layer_inputs) per_position += 8 * d * t.layers.size();
  const std::size_t positions = n + 1;
  if (positions > std::numeric_limits<std::size_t>::max() / per_position) return std::numeric_limits<std::size_t>::max();
  return positions * per_position;
}

std::string read_transduction(const TransducerReadout& tr, const Matrix& X, double* min_margin) {
  const std::int64_t n_pos = X.rows();
  std::string out(static_cast<std::size_t>(std::max<std::int64_t>(0, n_pos - 1)), tr.default_symbol);
  double margin = kNoGap;
  for (std::int64_t i = 1; i < n_pos; ++i) {
    std::size_t best = 0;
    for (std::size_t c = 1; c < tr.coordinates.size(); ++c) {
      if (X(i, tr.coordinates[c]) > X(i, tr.coordinates[best])) best = c;
    }
    const double v = X(i, tr.coordinates[best]);
    if (v >= tr.threshold) out[static_cast<std::size_t>(i - 1)] = tr.symbols[best];
    margin = std::min(margin, std::abs(v - tr.threshold));
  }
  if (min_margin) *min_margin = margin;
  return out;
}

std::vector<AttentionMap> attention_maps(const Engine& engine, std::string_view word, const RunOptions& options) {
  RunOptions o = options;
  o.keep_layer_inputs = true;
  const RunResult run = engine.run(word, o);
  const Transformer& t = engine.model();
  std::vector<AttentionMap> maps;
  const std::int64_t n_pos = static_cast<std::int64_t>(word.size()) + 1;
  for (std::size_t l = 0; l < t.layers.size(); ++l) {
    const Matrix& X = run.layer_inputs[l];
    for (std::size_t h = 0; h < t.layers[l].heads.size(); ++h) {
      const HeadConfig& hc = t.config.layers[l].heads[h];
      const Matrix S = (X * t.layers[l].heads[h].q.transpose()) * (X * t.layers[l].heads[h].k.transpose()).transpose();
      AttentionMap m;
      m.layer = static_cast<int>(l);
      m.head = static_cast<int>(h);
      m.label = hc.label;
      m.mode = options.mode;
      m.beta = run.beta;
      m.weights = Matrix::Zero(n_pos, n_pos);
      const HardKind kind = options.force_average ? HardKind::kAverage : hc.hard;
      for (std::int64_t i = 0; i < n_pos; ++i) {
        double best = -std::numeric_limits<double>::infinity();
        for (std::int64_t j = 0; j < n_pos; ++j) {
          if (key_visible(hc.mask, i, j)) best = std::max(best, S(i, j));
        }
        std::vector<std::int64_t> arg;
        double second = -std::numeric_limits<double>::infinity();
        for (std::int64_t j = 0; j < n_pos; ++j) {
          if (!key_visible(hc.mask, i, j)) continue;
          if (S(i, j) == best) arg.push_back(j);
          else second = std::max(second, S(i, j));
        }
        if (options.mode == AttentionMode::kSoftmax) {
          double z = 0;
          for (std::int64_t j = 0; j < n_pos; ++j) {
            if (key_visible(hc.mask, i, j)) z += (m.weights(i, j) = std::exp(run.beta * (S(i, j) - best)));
          }
          m.weights.row(i) /= z;
        } else if (kind == HardKind::kAverage) {
          for (std::int64_t j : arg) m.weights(i, j) = 1.0 / static_cast<double>(arg.size());
        } else {
          m.weights(i, kind == HardKind::kRightmost ? arg.back() : arg.front()) = 1.0;
        }
        double mass = 0;
        for (std::int64_t j : arg) mass += m.weights(i, j);
        m.target_mass.push_back(mass);
        m.gap.push_back(std::isfinite(second) ? best - second : kNoGap);
        m.targets.push_back(std::move(arg));
      }
      maps.push_back(std::move(m));
    }
  }
  return maps;
}

struct Engine::Impl {
  std::optional<Prepared<double>> d;
  std::optional<Prepared<float>> f;
};

Engine::Engine(Transformer model, Precision precision) : model_(std::move(model)), impl_(std::make_unique<Impl>()) {
  if (precision == Precision::kDouble) impl_->d.emplace(model_);
  else impl_->f.emplace(model_);
}
Engine::~Engine() = default;
Engine::Engine(Engine&&) noexcept = default;

RunResult Engine::run(std::string_view word, const RunOptions& options) const {
  return impl_->d ? impl_->d->run(model_, word, options) : impl_->f->run(model_, word, options);
}

}  // namespace softhat::model
