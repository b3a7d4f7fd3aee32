#include "util/progress.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdio>
#include <system_error>

namespace softhat::util {

namespace {
std::string rate_text(double per_second) {
  if (per_second >= 1e6) return fmt::format("{:.1f}M", per_second / 1e6);
  if (per_second >= 1e3) return fmt::format("{:.1f}k", per_second / 1e3);
  return fmt::format("{:.0f}", per_second);
}
std::string duration_text(double seconds) {
  const auto s = static_cast<long long>(std::ceil(seconds));
  if (s < 60) return fmt::format("{} s", s);
  if (s < 3600) return fmt::format("{} min {} s", s / 60, s % 60);
  return fmt::format("{} h {} min", s / 3600, (s % 3600) / 60);
}
}  // namespace

std::string Progress::line(const std::string& label, const std::string& unit, std::uint64_t done, std::uint64_t total,
                           double seconds) {
  const double rate = seconds > 0 ? static_cast<double>(done) / seconds : 0;
  std::string out = total ? fmt::format("{}: {}/{} {}", label, done, total, unit) : fmt::format("{}: {} {}", label, done, unit);
  out += fmt::format(", {} {}/s", rate_text(rate), unit);
  if (total && rate > 0 && done <= total) out += fmt::format(", {} left", duration_text(static_cast<double>(total - done) / rate));
  return out;
}

Progress::Progress(std::string label, std::string unit, double after)
    : enabled_(true),
      label_(std::move(label)),
      unit_(std::move(unit)),
      after_(after),
      start_(std::chrono::steady_clock::now()) {
  try {
    ticker_ = std::thread([this] { tick(); });
  } catch (const std::system_error&) {
    enabled_ = false;  // the system refused a thread: no progress line, the work goes on
  }
}

Progress::~Progress() { finish(); }

void Progress::set_label(std::string label) {
  const std::lock_guard<std::mutex> lock(mutex_);
  label_ = std::move(label);
}

void Progress::finish() {
  if (!enabled_) return;
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  if (ticker_.joinable()) ticker_.join();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  if (seconds >= after_) draw(seconds);  // the final count
  if (drawn_) std::fputs("\r\x1b[K", stderr);  // leaves the terminal as it was
  std::fflush(stderr);
  enabled_ = false;
}

void Progress::tick() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!wake_.wait_for(lock, std::chrono::milliseconds(200), [this] { return stop_; })) {
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    if (seconds >= after_) draw(seconds);
  }
}

void Progress::draw(double seconds) {
  const std::string text =
      line(label_, unit_, done_.load(std::memory_order_relaxed), total_.load(std::memory_order_relaxed), seconds);
  std::fputs(("\r" + text + "\x1b[K").c_str(), stderr);
  std::fflush(stderr);
  drawn_ = true;
}

}  // namespace softhat::util
