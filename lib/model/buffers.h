// The engine's working buffers (internal to lib/model): their exception-safe
// sizing, and the memory limit checked before any of them is sized.
#pragma once

#include <Eigen/Core>

#include <cstddef>
#include <new>

#include "model/forward.h"

namespace softhat::model {

// Sizes a buffer that outlives one run. Eigen's resize frees the old storage
// before allocating the new one and, if that allocation throws, keeps the
// freed pointer with the old shape (its destructor would free it again). Going
// through the empty matrix first means a failed allocation leaves an empty,
// valid buffer. When the number of coefficients is unchanged nothing is
// reallocated, as with a plain resize.
// An allocation that fails becomes a LimitError naming the bytes it needed
// (exit 2), with the buffer left empty and valid.
[[noreturn]] void buffer_allocation_failed(std::size_t bytes);
template <typename M>
void resize_buffer(M& m, Eigen::Index rows, Eigen::Index cols) {
  if (m.size() != rows * cols) m.resize(0, 0);
  try {
    m.resize(rows, cols);
  } catch (const std::bad_alloc&) {
    buffer_allocation_failed(static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols) *
                             sizeof(typename M::Scalar));
  }
}

// Throws std::invalid_argument, naming the estimate, if a word of n symbols
// would need more than options.max_memory (0: no limit).
void check_memory_limit(const Transformer& model, std::size_t n, const RunOptions& options);

}  // namespace softhat::model
