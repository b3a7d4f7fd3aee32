// Which attention path a head takes on a word, and the key blocks the
// blocked paths share.
#include "model/attention.h"

#include "util/error.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "model/buffers.h"

namespace softhat::model {

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

}  // namespace

void bad_row(const HeadJob& job, std::int64_t i, const char* what) {
  throw NumericError(fmt::format("layer {} head {}: attention row of position {} {} at beta = {:g} (too large an "
                                 "inverse temperature for these weights)",
                                 job.layer, job.head_index, i, what, job.beta));
}

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

void score_block(const HeadJob& job, std::int64_t i0, std::int64_t i1, std::int64_t j0, std::int64_t j1, ArrD& S) {
  const std::int64_t rows = i1 - i0, cols = j1 - j0;
  S = (job.Q.middleRows(i0, rows) * job.K.middleRows(j0, cols).transpose()).array();
  if (S.hasNaN()) bad_row(job, i0, "has a NaN score");
  if (!fully_visible(job.head.mask, i0, i1, j0, j1)) {
    for (std::int64_t r = 0; r < rows; ++r) {
      for (std::int64_t c = 0; c < cols; ++c) {
        if (!key_visible(job.head.mask, i0 + r, j0 + c)) S(r, c) = kNegInf;
      }
    }
  }
}

void attend(const HeadJob& job, AttentionScratch& scratch, MatD& out) {
  // Not zero-filled: every path writes every row (each scan emits each row
  // once, each blocked path ends every query row with its output).
  resize_buffer(out, job.K.rows(), job.V.cols());
  if (job.linear_scan) {
    // Linear-time paths, chosen from the weights' effect on this word alone:
    // few distinct queries (per-class online softmax) or few distinct keys
    // (per-class running sums), whichever has fewer classes.
    // With few query classes the keys only matter if they have fewer still:
    // their search stops at one class short of the queries' count (a head
    // with one query class classifies no key).
    if (job.same_queries) {
      // the previous head's classes (the same weights, so the same rows)
    } else if (job.constant_queries) {
      one_class(job.Q, job.K.rows(), scratch.queries);
      scratch.few_queries = true;
    } else {
      scratch.few_queries = row_classes(job.Q, kMaxQueryClasses, scratch.queries, scratch.rep_rows);
    }
    const bool few_queries = scratch.few_queries;
    const std::size_t key_limit = few_queries ? std::min(kMaxKeyClasses, scratch.queries.count - 1) : kMaxKeyClasses;
    const bool few_keys = row_classes(job.K, key_limit, scratch.keys, scratch.rep_rows);
    if (few_queries && !few_keys) {
      attend_query_classes(job, scratch.queries, *scratch.scan, out);
      return;
    }
    if (few_keys) {
      attend_key_classes(job, scratch.keys, *scratch.scan, out);
      return;
    }
  }
  if (job.mode == AttentionMode::kHard) {
    attend_hard_blocked(job, out);
  } else {
    attend_softmax_blocked(job, out);
  }
}

}  // namespace softhat::model
