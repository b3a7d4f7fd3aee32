// The linear-time exact paths. A head whose queries (or keys) take few
// distinct values on a word needs, per row, only per-class state: both scans
// visit the keys once in mask order and emit each row when its visible keys
// are all in, with the blocked paths' numerics.
#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <cmath>
#include <limits>
#include <type_traits>
#include <vector>

#include "model/attention.h"

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

// std::exp remembered by its argument's bits, in a direct-mapped table of
// 512 entries kept by a runner across heads and words. Compiled since heads
// score a key by a stop bit and j/(n+1), at beta = c(n+1): their logit
// differences are a few dozen values per word length (a stop's weight, and
// multiples of c for the distance to the last stop), the same in every head
// and in every word of that length, and words run in order of length. A
// miss calls std::exp and keeps its result, so every value is exactly
// std::exp's. Written by hand: no library memoizes a libm function.
class ExpTable {
 public:
  ExpTable() { slots_.fill({std::bit_cast<std::uint64_t>(kNaN), kNaN}); }  // exp(NaN) is NaN
  double operator()(double arg) {
    const std::uint64_t bits = std::bit_cast<std::uint64_t>(arg);
    Slot& slot = slots_[(bits * 0x9E3779B97F4A7C15ULL) >> (64 - kBits)];  // Fibonacci hashing
    if (slot.key != bits) {
      slot.key = bits;
      slot.value = std::exp(arg);
    }
    return slot.value;
  }

 private:
  static constexpr int kBits = 9;
  static constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
  struct Slot {
    std::uint64_t key;
    double value;
  };
  std::array<Slot, std::size_t{1} << kBits> slots_;
};

// exp(x), remembering its last argument (a head's logit differences repeat
// from key to key) and otherwise asking the runner's ExpTable: exp was 8%
// of a run on MLRegTest's 04.04.SP.4.1.2 with the last argument alone.
// Returns exactly std::exp(arg).
struct CachedExp {
  ExpTable* table = nullptr;
  double x = 0, y = 1;
  double operator()(double arg) {
    if (arg == 0) return 1.0;  // a key at the running maximum: exp(+-0) is exactly 1
    if (arg != x) {
      x = arg;
      y = (*table)(arg);
    }
    return y;
  }
};

// One key of the online softmax: key j with score s (logit beta * s, beta
// being job.beta, passed apart so a scan can keep it in a register) and
// value row v joins the running maximum m, normalizer l and value sum acc
// (dv columns). Dv is Eigen::Index for the general scan and
// std::integral_constant for scan_one_class, whose loops then have known
// trip counts; both scans run these same operations in this order, so give
// the same values.
// Always inlined: GCC kept the d_value 3 instance a call (3% of ab-star).
template <typename Dv>
[[gnu::always_inline]] inline void softmax_add(const HeadJob& job, double beta, std::int64_t j, double s,
                                               const double* v, Dv dv, double& m, double& l, double* acc,
                                               CachedExp& exp) {
  const double logit = beta * s;
  if (logit == std::numeric_limits<double>::infinity()) bad_row(job, j, "overflows");
  if (logit > m) {
    const double scale = m == kNegInf ? 0.0 : exp(m - logit);
    l = l * scale + 1.0;
    for (Eigen::Index c = 0; c < dv; ++c) acc[c] = acc[c] * scale + v[c];
    m = logit;
  } else if (logit - m >= -700.0) {  // smaller weights are exactly 0 (as in the blocked softmax)
    const double p = exp(logit - m);
    l += p;
    for (Eigen::Index c = 0; c < dv; ++c) acc[c] += p * v[c];
  }
}

// Row i's softmax output o (dv columns) from the state softmax_add built.
template <typename Dv>
[[gnu::always_inline]] inline void softmax_emit(const HeadJob& job, std::int64_t i, double m, double l,
                                                const double* acc, Dv dv, double* o) {
  if (!(l > 0) || !std::isfinite(m)) bad_row(job, i, "has no finite score");
  for (Eigen::Index c = 0; c < dv; ++c) o[c] = acc[c] / l;
}

// One query class's running state: the online softmax (m, l, acc) and, for
// margins and hard attention, the argmax set and its chosen key. Average-hard
// keeps the set's value sum in acc. acc points at the class's d_value
// doubles in a buffer the scan owns (raw loops: Eigen's dynamic-size
// expressions on rows of one or two values cost more than their arithmetic).
struct QueryClassState {
  double m = kNegInf, l = 0;
  ArgmaxTracker top;
  std::int64_t chosen = -1;
  double* acc = nullptr;

  // Adds key j with score s. kPlain: a softmax row without margin
  // statistics (run, classify, verify untraced), whose argmax bookkeeping
  // compiles out: the scans' per-key cost on compiled LTL models.
  template <bool kPlain>
  void add(const HeadJob& job, std::int64_t j, double s, CachedExp& exp) {
    const Eigen::Index dv = job.V.cols();
    const double* v = job.V.data() + j * dv;
    if constexpr (!kPlain) {
      const bool hard = job.mode == AttentionMode::kHard;
      const HardKind kind = job.head.hard;
      switch (top.add(s)) {
        case ArgmaxTracker::Step::kNewBest:
          if (hard && kind == HardKind::kAverage) std::copy(v, v + dv, acc);
          chosen = j;
          break;
        case ArgmaxTracker::Step::kTie:
          // Order-free tie breaking: keys may arrive in either direction.
          if (kind == HardKind::kRightmost) chosen = std::max(chosen, j);
          if (kind == HardKind::kLeftmost) chosen = std::min(chosen, j);
          if (hard && kind == HardKind::kAverage) {
            for (Eigen::Index c = 0; c < dv; ++c) acc[c] += v[c];
          }
          break;
        case ArgmaxTracker::Step::kBelow: break;
      }
      if (hard) return;
    }
    softmax_add(job, job.beta, j, s, v, dv, m, l, acc, exp);
  }

  // Row i's output (a row of this class).
  template <bool kPlain>
  void emit(const HeadJob& job, std::int64_t i, MatD& out) const {
    const Eigen::Index dv = job.V.cols();
    double* o = out.data() + i * dv;
    if (!kPlain && job.mode == AttentionMode::kHard) {
      if (chosen < 0) bad_row(job, i, "has no finite score");
      if (job.head.hard == HardKind::kAverage) {
        for (Eigen::Index c = 0; c < dv; ++c) o[c] = acc[c] / top.ties;
      } else {
        const double* v = job.V.data() + chosen * dv;
        std::copy(v, v + dv, o);
      }
      return;
    }
    softmax_emit(job, i, m, l, acc, dv, o);
    if (!kPlain && job.stats) job.stats->add_row(top.ties / l, top.gap(), job.beta);
  }
};

}  // namespace

// Both scans' per-class buffers, sized anew for every head (assign keeps the
// capacity, so a Runner's later heads and words allocate nothing).
struct ScanBuffers {
  ExpTable exp_table;  // shared by every scan of the runner
  // attend_query_classes: per class its state, exp cache and value accumulator.
  std::vector<QueryClassState> states;
  std::vector<CachedExp> exps;
  std::vector<double> acc;
  // attend_key_classes: per class the visible keys' count, value sum, score
  // and first and last position; the row's weighted sum.
  std::vector<double> count, sum, score, row_acc;
  std::vector<std::int64_t> lo, hi;
};

AttentionScratch::AttentionScratch() : scan(std::make_unique<ScanBuffers>()) {}
AttentionScratch::~AttentionScratch() = default;
AttentionScratch::AttentionScratch(AttentionScratch&&) noexcept = default;
AttentionScratch& AttentionScratch::operator=(AttentionScratch&&) noexcept = default;

bool row_classes(const MatD& M, std::size_t limit, RowClasses& classes, std::vector<Eigen::Index>& rep_rows) {
  // Raw rows and the last row's class tried first: compiled streams repeat a
  // class for long runs, and Eigen's dynamic-size row comparison cost more
  // than the scans themselves (15% of a run on 04.04.SP.4.1.2). The classes
  // are those of a plain first-appearance search: equality (==, coefficient
  // by coefficient) is transitive on the rows that equal any row at all, so a
  // row matches at most one representative.
  const Eigen::Index width = M.cols();
  const double* data = M.data();
  auto equal = [&](Eigen::Index a, Eigen::Index b) {
    const double* x = data + a * width;
    const double* y = data + b * width;
    for (Eigen::Index c = 0; c < width; ++c) {
      if (!(x[c] == y[c])) return false;
    }
    return true;
  };
  std::vector<std::int32_t>& cls = classes.cls;
  rep_rows.clear();
  cls.resize(static_cast<std::size_t>(M.rows()));
  std::int32_t last = -1;
  for (Eigen::Index j = 0; j < M.rows(); ++j) {
    std::int32_t c = -1;
    if (last >= 0 && equal(j, rep_rows[static_cast<std::size_t>(last)])) c = last;
    for (std::size_t r = 0; r < rep_rows.size() && c < 0; ++r) {
      if (static_cast<std::int32_t>(r) != last && equal(j, rep_rows[r])) c = static_cast<std::int32_t>(r);
    }
    if (c < 0) {
      if (rep_rows.size() >= limit) return false;
      c = static_cast<std::int32_t>(rep_rows.size());
      rep_rows.push_back(j);
    }
    cls[static_cast<std::size_t>(j)] = last = c;
  }
  const std::size_t w = static_cast<std::size_t>(width);
  classes.count = rep_rows.size();
  classes.reps.resize(classes.count * w);
  for (std::size_t r = 0; r < rep_rows.size(); ++r) {
    const double* row = data + rep_rows[r] * width;
    std::copy(row, row + width, classes.reps.data() + r * w);
  }
  return true;
}

void one_class(const MatD& row, std::int64_t n_pos, RowClasses& classes) {
  classes.cls.assign(static_cast<std::size_t>(n_pos), 0);
  classes.count = 1;
  classes.reps.assign(row.data(), row.data() + row.cols());
}

namespace {

template <bool kPlain>
void scan_query_classes(const HeadJob& job, const RowClasses& queries, ScanBuffers& buffers, MatD& out) {
  const std::size_t classes = queries.count;
  const std::vector<std::int32_t>& qcls = queries.cls;
  const double* qreps = queries.reps.data();
  const Eigen::Index dk = job.K.cols(), dv = job.V.cols();
  std::vector<double>& acc = buffers.acc;
  std::vector<QueryClassState>& states = buffers.states;
  std::vector<CachedExp>& exps = buffers.exps;
  acc.assign(classes * static_cast<std::size_t>(dv), 0.0);
  states.assign(classes, QueryClassState{});
  exps.assign(classes, CachedExp{&buffers.exp_table});
  for (std::size_t c = 0; c < classes; ++c) states[c].acc = acc.data() + c * static_cast<std::size_t>(dv);
  // Inlined into each of sweep's loops (GCC kept it a call: its frame was
  // 5% of a run's instructions on dyck-1-depth-2). GCC and Clang spelling.
  auto add = [&](std::int64_t j) __attribute__((always_inline)) {
    const double* k = job.K.data() + j * dk;
    for (std::size_t c = 0; c < classes; ++c) {
      const double* q = qreps + static_cast<Eigen::Index>(c) * dk;
      double s = 0;
      for (Eigen::Index t = 0; t < dk; ++t) s += q[t] * k[t];
      if (std::isnan(s)) bad_row(job, j, "has a NaN score");
      states[c].template add<kPlain>(job, j, s, exps[c]);
    }
  };
  auto emit = [&](std::int64_t i) { states[static_cast<std::size_t>(qcls[i])].template emit<kPlain>(job, i, out); };
  sweep(job.head.mask, job.K.rows(), add, emit);
}

// scan_query_classes<true> for a head with one query class and DK key and
// DV value columns, fixed at compile time: compiled heads query with a
// constant row, have 3 key columns and mostly 1 to 4 value columns. The
// running state (m, l, the value sum, the exp cache) lives in locals rather
// than in the per-class buffers, and the loops over key and value columns
// have known trip counts. Both run softmax_add and softmax_emit, so give
// the same values, at a quarter fewer instructions per key (ab-star).
template <int DK, int DV>
void scan_one_class(const HeadJob& job, const double* q, ExpTable& table, MatD& out) {
  constexpr std::integral_constant<Eigen::Index, DV> dv;
  double m = kNegInf, l = 0;
  std::array<double, DV> acc{};
  CachedExp exp{&table};
  const double beta = job.beta;
  const double* K = job.K.data();
  const double* V = job.V.data();
  double* o = out.data();
  auto add = [&](std::int64_t j) __attribute__((always_inline)) {
    const double* k = K + j * DK;
    double s = 0;
    for (int t = 0; t < DK; ++t) s += q[t] * k[t];
    if (std::isnan(s)) bad_row(job, j, "has a NaN score");
    softmax_add(job, beta, j, s, V + j * DV, dv, m, l, acc.data(), exp);
  };
  auto emit = [&](std::int64_t i) __attribute__((always_inline)) { softmax_emit(job, i, m, l, acc.data(), dv, o + i * DV); };
  sweep(job.head.mask, job.K.rows(), add, emit);
}

}  // namespace

void attend_query_classes(const HeadJob& job, const RowClasses& queries, ScanBuffers& buffers, MatD& out) {
  if (job.mode == AttentionMode::kSoftmax && job.stats == nullptr) {
    if (queries.count == 1 && job.K.cols() == 3) {
      const double* q = queries.reps.data();
      switch (job.V.cols()) {
        case 1: return scan_one_class<3, 1>(job, q, buffers.exp_table, out);
        case 2: return scan_one_class<3, 2>(job, q, buffers.exp_table, out);
        case 3: return scan_one_class<3, 3>(job, q, buffers.exp_table, out);
        case 4: return scan_one_class<3, 4>(job, q, buffers.exp_table, out);
        default: break;
      }
    }
    scan_query_classes<true>(job, queries, buffers, out);
  } else {
    scan_query_classes<false>(job, queries, buffers, out);
  }
}

void attend_key_classes(const HeadJob& job, const RowClasses& keys, ScanBuffers& buffers, MatD& out) {
  const std::size_t classes = keys.count;
  const std::vector<std::int32_t>& cls = keys.cls;
  const double* reps = keys.reps.data();
  const Eigen::Index dk = job.Q.cols(), dv = job.V.cols();
  const std::size_t width = static_cast<std::size_t>(dv);
  const HardKind kind = job.head.hard;
  std::vector<double>& count = buffers.count;
  std::vector<double>& sum = buffers.sum;
  std::vector<double>& score = buffers.score;
  std::vector<double>& acc = buffers.row_acc;
  std::vector<std::int64_t>& lo = buffers.lo;
  std::vector<std::int64_t>& hi = buffers.hi;
  count.assign(classes, 0.0);
  lo.assign(classes, std::numeric_limits<std::int64_t>::max());
  hi.assign(classes, -1);
  sum.assign(classes * width, 0.0);  // per class, its visible keys' value sum
  score.assign(classes, 0.0);
  acc.assign(width, 0.0);
  CachedExp exp{&buffers.exp_table};
  auto add = [&](std::int64_t j) {
    const std::int32_t c = cls[j];
    count[c] += 1;
    lo[c] = std::min(lo[c], j);
    hi[c] = std::max(hi[c], j);
    const double* v = job.V.data() + j * dv;
    double* s = sum.data() + static_cast<std::size_t>(c) * width;
    for (std::size_t t = 0; t < width; ++t) s[t] += v[t];
  };
  auto emit = [&](std::int64_t i) {
    ArgmaxTracker top;  // over the classes with visible keys, each weighted by its count
    const double* q = job.Q.data() + i * dk;
    for (std::size_t c = 0; c < classes; ++c) {
      if (count[c] == 0) continue;
      const double* k = reps + static_cast<Eigen::Index>(c) * dk;
      double sc = 0;
      for (Eigen::Index t = 0; t < dk; ++t) sc += q[t] * k[t];
      score[c] = sc;
      if (std::isnan(sc)) bad_row(job, i, "has a NaN score");
      top.add(sc, count[c]);
    }
    const double best = top.best;
    if (best == kNegInf) bad_row(job, i, "has no finite score");
    double* o = out.data() + i * dv;
    std::fill(acc.begin(), acc.end(), 0.0);
    if (job.mode == AttentionMode::kHard) {
      std::int64_t chosen = -1;
      for (std::size_t c = 0; c < classes; ++c) {
        if (count[c] == 0 || score[c] != best) continue;
        const double* s = sum.data() + c * width;
        for (std::size_t t = 0; t < width; ++t) acc[t] += s[t];
        if (kind == HardKind::kRightmost) chosen = std::max(chosen, hi[c]);
        if (kind == HardKind::kLeftmost) chosen = chosen < 0 ? lo[c] : std::min(chosen, lo[c]);
      }
      if (kind == HardKind::kAverage) {
        for (std::size_t t = 0; t < width; ++t) o[t] = acc[t] / top.ties;
      } else {
        const double* v = job.V.data() + chosen * dv;
        std::copy(v, v + dv, o);
      }
      return;
    }
    const double m = job.beta * best;
    if (!std::isfinite(m)) bad_row(job, i, "overflows (a logit is infinite)");
    double l = 0;
    for (std::size_t c = 0; c < classes; ++c) {
      if (count[c] == 0) continue;
      const double x = job.beta * score[c] - m;
      const double p = x < -700.0 ? 0.0 : exp(x);
      l += count[c] * p;
      const double* s = sum.data() + c * width;
      for (std::size_t t = 0; t < width; ++t) acc[t] += p * s[t];
    }
    for (std::size_t t = 0; t < width; ++t) o[t] = acc[t] / l;
    if (job.stats) job.stats->add_row(top.ties / l, top.gap(), job.beta);
  };
  sweep(job.head.mask, job.K.rows(), add, emit);
}

}  // namespace softhat::model
