// The linear-time exact paths. A head whose queries (or keys) take few
// distinct values on a word needs, per row, only per-class state: both scans
// visit the keys once in mask order and emit each row when its visible keys
// are all in, with the blocked paths' numerics.
#include <cmath>
#include <limits>
#include <vector>

#include "model/attention.h"
#include "model/buffers.h"

namespace softhat::model {

namespace {

// Visits keys in mask order and emits each row once its visible keys are
// all added: prefix order for future masks, suffix order for past masks.
template <typename Add, typename Emit>
void sweep(Mask mask, std::int64_t n_pos, Add&& add, Emit&& emit) {
  add(0);  // BOS, visible everywhere
  switch (mask) {
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

// One query class's running state: the online softmax (m, l, acc) and, for
// margins and hard attention, the argmax set and its chosen key. Average-hard
// keeps the set's value sum in acc.
struct QueryClassState {
  double m = kNegInf, l = 0;
  ArgmaxTracker top;
  std::int64_t chosen = -1;
  Eigen::RowVectorXd acc;

  // Adds key j with score s.
  void add(const HeadJob& job, std::int64_t j, double s) {
    const bool hard = job.mode == AttentionMode::kHard;
    const HardKind kind = job.head.hard;
    if (hard || job.stats) {
      switch (top.add(s)) {
        case ArgmaxTracker::Step::kNewBest:
          if (hard && kind == HardKind::kAverage) acc = job.V.row(j);
          chosen = j;
          break;
        case ArgmaxTracker::Step::kTie:
          // Order-free tie breaking: keys may arrive in either direction.
          if (kind == HardKind::kRightmost) chosen = std::max(chosen, j);
          if (kind == HardKind::kLeftmost) chosen = std::min(chosen, j);
          if (hard && kind == HardKind::kAverage) acc += job.V.row(j);
          break;
        case ArgmaxTracker::Step::kBelow: break;
      }
    }
    if (hard) return;
    const double logit = job.beta * s;
    if (logit == std::numeric_limits<double>::infinity()) bad_row(job, j, "overflows");
    if (logit > m) {
      const double scale = m == kNegInf ? 0.0 : std::exp(m - logit);
      l = l * scale + 1.0;
      acc = acc * scale + job.V.row(j);
      m = logit;
    } else if (logit - m >= -700.0) {  // smaller weights are exactly 0 (as in the blocked softmax)
      const double p = std::exp(logit - m);
      l += p;
      acc += p * job.V.row(j);
    }
  }

  // Row i's output (a row of this class).
  void emit(const HeadJob& job, std::int64_t i, MatD& out) const {
    if (job.mode == AttentionMode::kHard) {
      if (chosen < 0) bad_row(job, i, "has no finite score");
      out.row(i) = job.head.hard == HardKind::kAverage ? Eigen::RowVectorXd(acc / top.ties)
                                                       : Eigen::RowVectorXd(job.V.row(chosen));
      return;
    }
    if (!(l > 0) || !std::isfinite(m)) bad_row(job, i, "has no finite score");
    out.row(i) = acc / l;
    if (job.stats) job.stats->add_row(top.ties / l, top.gap(), job.beta);
  }
};

}  // namespace

bool row_classes(const MatD& M, std::size_t limit, std::vector<std::int32_t>& cls, MatD& reps) {
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
  resize_buffer(reps, static_cast<Eigen::Index>(rep_rows.size()), M.cols());
  for (std::size_t r = 0; r < rep_rows.size(); ++r) reps.row(static_cast<Eigen::Index>(r)) = M.row(rep_rows[r]);
  return true;
}

void attend_query_classes(const HeadJob& job, const std::vector<std::int32_t>& qcls, const MatD& qreps, MatD& out) {
  std::vector<QueryClassState> states(static_cast<std::size_t>(qreps.rows()));
  for (QueryClassState& st : states) st.acc = Eigen::RowVectorXd::Zero(job.V.cols());
  auto add = [&](std::int64_t j) {
    for (Eigen::Index c = 0; c < qreps.rows(); ++c) {
      const double s = qreps.row(c).dot(job.K.row(j));
      if (std::isnan(s)) bad_row(job, j, "has a NaN score");
      states[static_cast<std::size_t>(c)].add(job, j, s);
    }
  };
  auto emit = [&](std::int64_t i) { states[static_cast<std::size_t>(qcls[i])].emit(job, i, out); };
  sweep(job.head.mask, job.Q.rows(), add, emit);
}

void attend_key_classes(const HeadJob& job, const std::vector<std::int32_t>& cls, const MatD& reps, MatD& out) {
  const std::size_t classes = static_cast<std::size_t>(reps.rows());
  const Eigen::Index dv = job.V.cols();
  const HardKind kind = job.head.hard;
  std::vector<double> count(classes, 0.0);
  std::vector<std::int64_t> lo(classes, std::numeric_limits<std::int64_t>::max()), hi(classes, -1);
  MatD sum = MatD::Zero(static_cast<Eigen::Index>(classes), dv);
  std::vector<double> score(classes);
  auto add = [&](std::int64_t j) {
    const std::int32_t c = cls[j];
    count[c] += 1;
    lo[c] = std::min(lo[c], j);
    hi[c] = std::max(hi[c], j);
    sum.row(c) += job.V.row(j);
  };
  auto emit = [&](std::int64_t i) {
    ArgmaxTracker top;  // over the classes with visible keys, each weighted by its count
    for (std::size_t c = 0; c < classes; ++c) {
      if (count[c] == 0) continue;
      score[c] = job.Q.row(i).dot(reps.row(static_cast<Eigen::Index>(c)));
      if (std::isnan(score[c])) bad_row(job, i, "has a NaN score");
      top.add(score[c], count[c]);
    }
    const double best = top.best;
    if (best == kNegInf) bad_row(job, i, "has no finite score");
    if (job.mode == AttentionMode::kHard) {
      std::int64_t chosen = -1;
      Eigen::RowVectorXd acc = Eigen::RowVectorXd::Zero(dv);
      for (std::size_t c = 0; c < classes; ++c) {
        if (count[c] == 0 || score[c] != best) continue;
        acc += sum.row(static_cast<Eigen::Index>(c));
        if (kind == HardKind::kRightmost) chosen = std::max(chosen, hi[c]);
        if (kind == HardKind::kLeftmost) chosen = chosen < 0 ? lo[c] : std::min(chosen, lo[c]);
      }
      out.row(i) = kind == HardKind::kAverage ? Eigen::RowVectorXd(acc / top.ties) : Eigen::RowVectorXd(job.V.row(chosen));
      return;
    }
    const double m = job.beta * best;
    if (!std::isfinite(m)) bad_row(job, i, "overflows (a logit is infinite)");
    double l = 0;
    Eigen::RowVectorXd acc = Eigen::RowVectorXd::Zero(dv);
    for (std::size_t c = 0; c < classes; ++c) {
      if (count[c] == 0) continue;
      const double x = job.beta * score[c] - m;
      const double p = x < -700.0 ? 0.0 : std::exp(x);
      l += count[c] * p;
      acc += p * sum.row(static_cast<Eigen::Index>(c));
    }
    out.row(i) = acc / l;
    if (job.stats) job.stats->add_row(top.ties / l, top.gap(), job.beta);
  };
  sweep(job.head.mask, job.Q.rows(), add, emit);
}

}  // namespace softhat::model
