// A progress line for long runs: "verify a-since-b: 41200/120000 words,
// 20.6k words/s, 4 s left", redrawn in place on stderr about five times a
// second once a run has taken a second. It exists only where a person
// watches: the CLI enables it when stderr is a terminal and --quiet is off,
// so it never reaches stdout, a pipe or a file. Work loops call advance()
// (one relaxed atomic add, from any thread); the line is drawn by a ticker
// thread of its own, so what a run computes never depends on it.
// (No Debian package draws a progress line without taking over the
// terminal or stdout: indicators and similar libraries are not packaged.)
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

namespace softhat::util {

class Progress {
 public:
  Progress() = default;  // disabled: every call is a no-op
  // Draws `label` (e.g. "verify a-since-b") with the unit's name ("words"),
  // once the run has taken `after` seconds (then also once more at finish).
  Progress(std::string label, std::string unit, double after = 1.0);
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  bool enabled() const { return enabled_; }
  void add_total(std::uint64_t n) { total_.fetch_add(n, std::memory_order_relaxed); }
  void advance(std::uint64_t n = 1) { done_.fetch_add(n, std::memory_order_relaxed); }
  void set_label(std::string label);
  // Clears the line and stops the ticker (the destructor does it too).
  void finish();

  // The line drawn after `seconds` with `done` of `total` (0: unknown) units.
  static std::string line(const std::string& label, const std::string& unit, std::uint64_t done, std::uint64_t total,
                          double seconds);

 private:
  void tick();
  void draw(double seconds);  // with mutex_ held

  bool enabled_ = false;
  std::string label_, unit_;
  std::atomic<std::uint64_t> done_{0}, total_{0};
  double after_ = 1.0;
  std::chrono::steady_clock::time_point start_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false;
  bool drawn_ = false;
  std::thread ticker_;
};

// One unit of work done when it leaves scope (a loop body with `continue`s).
class ProgressStep {
 public:
  explicit ProgressStep(Progress* progress) : progress_(progress) {}
  ~ProgressStep() {
    if (progress_) progress_->advance();
  }
  ProgressStep(const ProgressStep&) = delete;
  ProgressStep& operator=(const ProgressStep&) = delete;

 private:
  Progress* progress_;
};

}  // namespace softhat::util
