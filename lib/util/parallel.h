// The two ways softhat spreads work over threads, with one rule for errors:
// an exception in a worker (an engine error on one word) is rethrown in the
// caller after every worker has stopped, never left to terminate the
// process. Results never depend on the thread count: callers write each
// item's result to its own slot and merge in index order. A thread the
// system refuses to start is no error: its share runs on the caller's.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>

namespace softhat {

// Splits [lo, hi) into `threads` contiguous blocks, block t to thread t:
// block(t, a, b). For work whose items share state along the order (a
// prefix-sharing runner walks consecutive words).
void parallel_blocks(std::uint64_t lo, std::uint64_t hi, int threads,
                     const std::function<void(int t, std::uint64_t a, std::uint64_t b)>& block);

// Items 0..count-1 taken one at a time by up to `threads` threads, until
// done or interrupted (util/interrupt.h): item(i). For items of uneven cost.
void parallel_items(std::size_t count, int threads, const std::function<void(std::size_t i)>& item);

}  // namespace softhat
