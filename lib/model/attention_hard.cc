// Blocked hard attention: each row attends to the argmax set of its raw
// scores (exact double equality), as the head declares: the rightmost or
// leftmost member alone, or the average of all of them.
#include <vector>

#include "model/attention.h"
#include "util/interrupt.h"

namespace softhat::model {

void attend_hard_blocked(const HeadJob& job, MatD& out) {
  const std::int64_t n_pos = job.K.rows();
  const HardKind kind = job.head.hard;
  ArrD S;
  for (std::int64_t i0 = 0; i0 < n_pos; i0 += job.query_block) {
    throw_if_interrupted();
    const std::int64_t i1 = std::min<std::int64_t>(n_pos, i0 + job.query_block);
    const std::int64_t rows = i1 - i0;
    std::vector<ArgmaxTracker> top(static_cast<std::size_t>(rows));
    std::vector<std::int64_t> chosen(static_cast<std::size_t>(rows), -1);
    MatD acc = MatD::Zero(rows, job.V.cols());  // average-hard: the sum of the set's values
    for_each_key_block(job, i0, i1, S, [&](std::int64_t j0, std::int64_t) {
      for (Eigen::Index r = 0; r < S.rows(); ++r) {
        for (Eigen::Index c = 0; c < S.cols(); ++c) {
          if (S(r, c) == kNegInf) continue;
          const std::int64_t j = j0 + c;
          switch (top[r].add(S(r, c))) {
            case ArgmaxTracker::Step::kNewBest:
              chosen[r] = j;
              if (kind == HardKind::kAverage) acc.row(r) = job.V.row(j);
              break;
            case ArgmaxTracker::Step::kTie:
              // Keys arrive in increasing j: the rightmost tie is the latest.
              if (kind == HardKind::kRightmost) chosen[r] = std::max(chosen[r], j);
              if (kind == HardKind::kAverage) acc.row(r) += job.V.row(j);
              break;
            case ArgmaxTracker::Step::kBelow: break;
          }
        }
      }
    });
    for (std::int64_t r = 0; r < rows; ++r) {
      const std::int64_t i = i0 + r;
      if (chosen[r] < 0) bad_row(job, i, "has no finite score");
      if (kind == HardKind::kAverage) out.row(i) = acc.row(r) / top[r].ties;
      else out.row(i) = job.V.row(chosen[r]);
    }
  }
}

}  // namespace softhat::model
