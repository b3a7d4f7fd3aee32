#include "util/parallel.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

#include "util/interrupt.h"

namespace softhat {

namespace {
// Runs body(t) on `threads` threads (on this one when threads == 1) and
// rethrows a failure after every body has stopped: an interrupt first (the
// user's Ctrl-C is exit 130 whatever else failed), else the first in thread
// order. A thread the system refuses to start (std::system_error: a process
// or address-space limit) is no error: its body runs on this thread once the
// others are started. A body's work depends on t alone, so results do not
// change.
void run_threads(int threads, const std::function<void(int)>& body) {
  if (threads <= 1) {
    body(0);
    return;
  }
  std::vector<std::exception_ptr> failures(static_cast<std::size_t>(threads));
  auto worker = [&](int t) {
    try {
      body(t);
    } catch (...) {
      failures[static_cast<std::size_t>(t)] = std::current_exception();
    }
  };
  std::vector<std::thread> pool;
  pool.reserve(static_cast<std::size_t>(threads));  // emplace_back below never reallocates
  int started = 0;
  for (; started < threads; ++started) {
    try {
      pool.emplace_back(worker, started);
    } catch (const std::system_error&) {
      break;
    }
  }
  for (int t = started; t < threads; ++t) worker(t);
  for (std::thread& th : pool) th.join();
  for (const std::exception_ptr& f : failures) {
    if (!f) continue;
    try {
      std::rethrow_exception(f);
    } catch (const Interrupted&) {
      throw;
    } catch (...) {
    }
  }
  for (const std::exception_ptr& f : failures) {
    if (f) std::rethrow_exception(f);
  }
}
}  // namespace

void parallel_blocks(std::uint64_t lo, std::uint64_t hi, int threads,
                     const std::function<void(int t, std::uint64_t a, std::uint64_t b)>& block) {
  const auto n = static_cast<std::uint64_t>(std::max(1, threads));
  run_threads(static_cast<int>(n), [&](int t) {
    const auto k = static_cast<std::uint64_t>(t);
    block(t, lo + (hi - lo) * k / n, lo + (hi - lo) * (k + 1) / n);
  });
}

void parallel_items(std::size_t count, int threads, const std::function<void(std::size_t i)>& item) {
  std::atomic<std::size_t> next{0};
  run_threads(std::max(1, threads), [&](int) {
    for (std::size_t i; !interrupted() && (i = next.fetch_add(1)) < count;) item(i);
  });
}

}  // namespace softhat
