// The one helper for memory limits: estimate before allocating, then check
// the estimate against --max-memory (the CLI passes it down as a value).
// Estimates multiply counts that come from the command line, so they
// saturate instead of wrapping around.
#pragma once

#include <cstddef>
#include <initializer_list>
#include <string>
#include <string_view>
#include <type_traits>

namespace softhat::util {

inline constexpr std::size_t kDefaultMaxMemory = std::size_t{8} << 30;  // 8 GiB

// a * b * ..., or SIZE_MAX if the product does not fit.
std::size_t saturating_product(std::initializer_list<std::size_t> factors);
std::size_t saturating_sum(std::initializer_list<std::size_t> terms);

// "1.5 GiB", "12.0 MiB", "512 bytes".
std::string format_bytes(std::size_t bytes);

// Throws LimitError(Limit::kMemory):
// "<what> needs about <need>, over the limit of <limit>".
[[noreturn]] void memory_exceeded(std::size_t need, std::size_t limit, std::string_view what);

// Whether `need` exceeds `limit` (0: no limit).
inline bool over_memory_limit(std::size_t need, std::size_t limit) { return limit != 0 && need > limit; }

// memory_exceeded if `need` exceeds `limit`.
inline void check_memory(std::size_t need, std::size_t limit, std::string_view what) {
  if (over_memory_limit(need, limit)) memory_exceeded(need, limit, what);
}
// The same for checks made on every word: `what()` is formatted only when the
// limit is exceeded.
template <typename What>
  requires std::is_invocable_r_v<std::string, What>
void check_memory(std::size_t need, std::size_t limit, What&& what) {
  if (over_memory_limit(need, limit)) memory_exceeded(need, limit, what());
}

// Throws LimitError(Limit::kMemory) naming `bytes`, for an allocation that failed.
[[noreturn]] void allocation_failed(std::size_t bytes, std::string_view what);

}  // namespace softhat::util
