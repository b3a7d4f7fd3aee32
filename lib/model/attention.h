// One attention head over all positions (internal to lib/model): the
// interface the forward pass calls and the attention paths implement.
//
//   attention.cc           chooses the path; the blocked paths' key blocks
//   attention_softmax.cc   blocked online softmax (any head, any word)
//   attention_hard.cc      blocked hard attention (argmax set, as declared)
//   attention_scan.cc      linear-time exact scans for heads whose queries or
//                          keys take few distinct values on the word
//
// Q, K, V are double in every precision: scores and weighted sums accumulate
// in double.
#pragma once

#include <Eigen/Core>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <vector>

#include "model/forward.h"

namespace softhat::model {

using MatD = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using ArrD = Eigen::Array<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
inline constexpr double kNegInf = -std::numeric_limits<double>::infinity();

// The argmax set of a stream of scores, tracked exactly (double equality):
// its score, its size (ties, a sum of weights: keys of a class count for
// their number) and the best score outside it (-inf while none). Scores
// equal to -inf count as ties of the initial -inf best; a NaN changes nothing.
struct ArgmaxTracker {
  enum class Step : std::uint8_t { kNewBest, kTie, kBelow };
  double best = kNegInf;
  double second = kNegInf;
  double ties = 0;

  // What the score did to the set: started a new one, joined it, or neither.
  Step add(double score, double weight = 1) {
    if (score > best) {
      second = best;
      best = score;
      ties = weight;
      return Step::kNewBest;
    }
    if (score == best) {
      ties += weight;
      return Step::kTie;
    }
    if (score > second) second = score;
    return Step::kBelow;
  }
  // Best score minus the best score outside the argmax set (kNoGap if none).
  double gap() const { return std::isfinite(second) ? best - second : kNoGap; }
};

// The linear scans' per-class state (attention_scan.cc).
struct ScanBuffers;

// The distinct rows of a matrix (row_classes): the class of every row, and
// one representative row per class, `count` rows of the matrix's width in
// `reps`. Plain vectors: their capacity outlives a smaller head or word, where
// a matrix would be reallocated at every change of shape.
struct RowClasses {
  std::vector<std::int32_t> cls;
  std::vector<double> reps;
  std::size_t count = 0;
};

// The buffers the linear-time paths reuse across heads and words (one per
// Runner: a head allocates nothing once its word length and classes are seen).
struct AttentionScratch {
  AttentionScratch();
  ~AttentionScratch();
  AttentionScratch(AttentionScratch&&) noexcept;
  AttentionScratch& operator=(AttentionScratch&&) noexcept;
  RowClasses queries, keys;
  bool few_queries = false;  // whether `queries` holds the last scanned head's query classes
  std::vector<Eigen::Index> rep_rows;  // row_classes' representatives while it classifies
  std::unique_ptr<ScanBuffers> scan;
};

// One head on one word: its inputs and how it attends.
struct HeadJob {
  const MatD& Q;
  const MatD& K;
  const MatD& V;
  const HeadConfig& head;
  AttentionMode mode;
  double beta;
  int layer, head_index;  // for error messages
  int query_block, key_block;
  bool linear_scan;
  MarginStats* stats;  // null when not tracing (softmax rows only)
  // Q is the previous head's Q on this word (the layer's heads share their
  // query weights): its query classes in the scratch are reused.
  bool same_queries = false;
  // Every position's query is the same (the query weights read only
  // residual columns constant on every word): Q holds that one row, and the
  // head takes the query-class scan (linear_scan is set).
  bool constant_queries = false;
};

// out ((n+1) x d_value) = the head's attention over V.
void attend(const HeadJob& job, AttentionScratch& scratch, MatD& out);

[[noreturn]] void bad_row(const HeadJob& job, std::int64_t i, const char* what);

// The blocked paths: query blocks of job.query_block rows against key blocks
// of job.key_block columns, the n x n matrix never materialized.
void attend_softmax_blocked(const HeadJob& job, MatD& out);
void attend_hard_blocked(const HeadJob& job, MatD& out);

// Fills S with the scores of queries [i0, i1) against keys [j0, j1), -inf
// where the mask hides a key; a NaN score is an error.
void score_block(const HeadJob& job, std::int64_t i0, std::int64_t i1, std::int64_t j0, std::int64_t j1, ArrD& S);

// The keys a query block [i0, i1) needs besides BOS.
struct KeyRange {
  std::int64_t lo, hi;  // visible non-BOS keys are within [lo, hi)
};
KeyRange key_range(Mask mask, std::int64_t i0, std::int64_t i1, std::int64_t n_pos);

// Calls block(j0, j1) after score_block for every key block a query block
// [i0, i1) sees: BOS first, then its visible keys in key_block steps.
template <typename Block>
void for_each_key_block(const HeadJob& job, std::int64_t i0, std::int64_t i1, ArrD& S, Block&& block) {
  auto process = [&](std::int64_t j0, std::int64_t j1) {
    if (j1 <= j0) return;
    score_block(job, i0, i1, j0, j1, S);
    block(j0, j1);
  };
  process(0, 1);  // BOS
  const KeyRange range = key_range(job.head.mask, i0, i1, job.K.rows());
  for (std::int64_t j0 = range.lo; j0 < range.hi; j0 += job.key_block) {
    process(j0, std::min(range.hi, j0 + job.key_block));
  }
}

// The linear-time paths (attention_scan.cc). Queries, or keys, take at most
// 16 distinct values (exactly; compiled heads read 0/1 coordinates).
inline constexpr std::size_t kMaxQueryClasses = 16;
inline constexpr std::size_t kMaxKeyClasses = 16;
// The distinct rows of M (exact equality), at most `limit` of them, into
// `classes`; false if more. rep_rows is scratch (the representatives' row
// numbers).
bool row_classes(const MatD& M, std::size_t limit, RowClasses& classes, std::vector<Eigen::Index>& rep_rows);
// n_pos rows in one class, represented by `row` (a 1-row matrix): the classes
// row_classes finds when every row equals that one.
void one_class(const MatD& row, std::int64_t n_pos, RowClasses& classes);
// Per query class, one online softmax (or hard argmax) over the keys in mask
// order: a row costs O(classes), the head O(n * classes * d).
void attend_query_classes(const HeadJob& job, const RowClasses& queries, ScanBuffers& buffers, MatD& out);
// Per key class, the count and value sum of the visible keys, kept as
// running sums in mask order: O(n * classes).
void attend_key_classes(const HeadJob& job, const RowClasses& keys, ScanBuffers& buffers, MatD& out);

}  // namespace softhat::model
