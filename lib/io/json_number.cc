#include "io/json_number.h"

#include <fmt/format.h>

#include "util/error.h"

namespace softhat::io {

std::int64_t json_integer(const nlohmann::json& v, std::int64_t lo, std::int64_t hi, const std::string& what) {
  if (!v.is_number_integer()) throw InputError(fmt::format("{} must be an integer, found {}", what, v.dump()));
  if (v.is_number_unsigned() ? v.get<std::uint64_t>() > static_cast<std::uint64_t>(hi)
                             : v.get<std::int64_t>() < lo || v.get<std::int64_t>() > hi) {
    throw InputError(fmt::format("{} is {}, outside [{}, {}]", what, v.dump(), lo, hi));
  }
  return v.is_number_unsigned() ? static_cast<std::int64_t>(v.get<std::uint64_t>()) : v.get<std::int64_t>();
}

std::uint64_t json_unsigned(const nlohmann::json& v, const std::string& what, std::uint64_t hi) {
  if (!v.is_number_integer()) throw InputError(fmt::format("{} must be an integer, found {}", what, v.dump()));
  if (!v.is_number_unsigned() && v.get<std::int64_t>() < 0) {
    throw InputError(fmt::format("{} is {}, but it cannot be negative", what, v.dump()));
  }
  const std::uint64_t x = v.is_number_unsigned() ? v.get<std::uint64_t>() : static_cast<std::uint64_t>(v.get<std::int64_t>());
  if (x > hi) throw InputError(fmt::format("{} is {}, more than {}", what, x, hi));
  return x;
}

}  // namespace softhat::io
