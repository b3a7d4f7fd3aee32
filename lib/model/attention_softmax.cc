// Blocked online softmax: per query row a running maximum logit m, running
// sum l and rescaled accumulator acc, updated one key block at a time.
#include <cmath>
#include <limits>
#include <vector>

#include "model/attention.h"
#include "util/interrupt.h"

namespace softhat::model {

namespace {

using ColD = Eigen::Array<double, Eigen::Dynamic, 1>;

// The running state of one query block.
struct SoftmaxRows {
  ColD m, l;
  MatD acc;
  std::vector<ArgmaxTracker> top;  // exact argmax sets of the raw scores (tracing only)

  SoftmaxRows(std::int64_t rows, Eigen::Index dv)
      : m(ColD::Constant(rows, kNegInf)), l(ColD::Zero(rows)), acc(MatD::Zero(rows, dv)), top(rows) {}

  // Folds in the block S of keys [j0, j0 + S.cols()).
  void update(const HeadJob& job, std::int64_t i0, std::int64_t j0, const ArrD& S) {
    const std::int64_t rows = S.rows(), cols = S.cols();
    if (job.stats) {
      for (Eigen::Index r = 0; r < rows; ++r) {
        for (Eigen::Index c = 0; c < cols; ++c) {
          if (S(r, c) != kNegInf) top[r].add(S(r, c));
        }
      }
    }
    // Online softmax over the block, vectorized across rows and columns.
    ArrD L = job.beta * S;
    const ColD block_max = L.rowwise().maxCoeff();
    if ((block_max == std::numeric_limits<double>::infinity()).any()) {
      bad_row(job, i0, "overflows (a logit is infinite)");
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
    acc = (acc.array().colwise() * scale).matrix() + L.matrix() * job.V.middleRows(j0, cols);
    m = new_m;
  }
};

}  // namespace

void attend_softmax_blocked(const HeadJob& job, MatD& out) {
  const std::int64_t n_pos = job.K.rows();
  ArrD S;
  for (std::int64_t i0 = 0; i0 < n_pos; i0 += job.query_block) {
    throw_if_interrupted();
    const std::int64_t i1 = std::min<std::int64_t>(n_pos, i0 + job.query_block);
    SoftmaxRows st(i1 - i0, job.V.cols());
    for_each_key_block(job, i0, i1, S, [&](std::int64_t j0, std::int64_t) { st.update(job, i0, j0, S); });
    for (std::int64_t r = 0; r < i1 - i0; ++r) {
      const std::int64_t i = i0 + r;
      if (!(st.l(r) > 0) || !std::isfinite(st.m(r))) bad_row(job, i, "has no finite score");
      out.row(i) = st.acc.row(r) / st.l(r);
      // Every maximal score has weight exp(0)/l; the rest is the leak.
      if (job.stats) job.stats->add_row(st.top[r].ties / st.l(r), st.top[r].gap(), job.beta);
    }
  }
}

}  // namespace softhat::model
