#include "util/interrupt.h"

#include <atomic>
#include <csignal>

namespace softhat {

namespace {
std::atomic<bool> g_interrupted{false};
std::atomic<int> g_signal{0};
static_assert(std::atomic<bool>::is_always_lock_free, "the flag is set from a signal handler");
static_assert(std::atomic<int>::is_always_lock_free, "the signal is stored from a signal handler");

extern "C" void on_signal(int sig) {
  g_signal.store(sig, std::memory_order_relaxed);
  g_interrupted.store(true, std::memory_order_relaxed);
  std::signal(sig, SIG_DFL);  // a second signal kills
}
}  // namespace

void install_interrupt_handler() {
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
}

bool interrupted() { return g_interrupted.load(std::memory_order_relaxed); }

void throw_if_interrupted() {
  if (interrupted()) throw Interrupted();
}

void set_interrupted(bool value) {
  g_signal.store(value ? SIGINT : 0, std::memory_order_relaxed);
  g_interrupted.store(value, std::memory_order_relaxed);
}

int interrupted_exit_status() {
  const int sig = g_signal.load(std::memory_order_relaxed);
  return 128 + (sig ? sig : SIGINT);
}

}  // namespace softhat
