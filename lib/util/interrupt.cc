#include "util/interrupt.h"

#include <atomic>
#include <csignal>

namespace softhat {

namespace {
std::atomic<bool> g_interrupted{false};
static_assert(std::atomic<bool>::is_always_lock_free, "the flag is set from a signal handler");

extern "C" void on_signal(int sig) {
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

void set_interrupted(bool value) { g_interrupted.store(value, std::memory_order_relaxed); }

}  // namespace softhat
