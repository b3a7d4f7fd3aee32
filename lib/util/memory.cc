#include "util/memory.h"

#include <fmt/format.h>

#include <limits>

#include "util/error.h"

namespace softhat::util {

std::size_t saturating_product(std::initializer_list<std::size_t> factors) {
  std::size_t p = 1;
  for (std::size_t f : factors) {
    if (f != 0 && p > std::numeric_limits<std::size_t>::max() / f) return std::numeric_limits<std::size_t>::max();
    p *= f;
  }
  return p;
}

std::size_t saturating_sum(std::initializer_list<std::size_t> terms) {
  std::size_t s = 0;
  for (std::size_t t : terms) {
    if (s > std::numeric_limits<std::size_t>::max() - t) return std::numeric_limits<std::size_t>::max();
    s += t;
  }
  return s;
}

std::string format_bytes(std::size_t b) {
  if (b == std::numeric_limits<std::size_t>::max()) return "more than 16 EiB";
  if (b >= (std::size_t{1} << 30)) return fmt::format("{:.1f} GiB", static_cast<double>(b) / (1 << 30));
  if (b >= (std::size_t{1} << 20)) return fmt::format("{:.1f} MiB", static_cast<double>(b) / (1 << 20));
  if (b >= (std::size_t{1} << 10)) return fmt::format("{:.1f} KiB", static_cast<double>(b) / (1 << 10));
  return fmt::format("{} bytes", b);
}

void memory_exceeded(std::size_t need, std::size_t limit, std::string_view what) {
  throw LimitError(fmt::format("{} needs about {}, over the limit of {}", what, format_bytes(need), format_bytes(limit)),
                   Limit::kMemory);
}

void allocation_failed(std::size_t bytes, std::string_view what) {
  throw LimitError(fmt::format("{}: out of memory allocating {}", what, format_bytes(bytes)), Limit::kMemory);
}

}  // namespace softhat::util
