// The one memory-limit helper: saturating estimates, the limit's message,
// and a lazily formatted description that is built only when the limit is
// exceeded.
#include <catch2/catch.hpp>
#include <limits>
#include <string>

#include "util/error.h"
#include "util/memory.h"

using namespace softhat;

TEST_CASE("memory: saturating estimates and byte counts", "[util][memory]") {
  constexpr std::size_t kMax = std::numeric_limits<std::size_t>::max();
  CHECK(util::saturating_product({3, 5, 7}) == 105);
  CHECK(util::saturating_product({std::size_t{1} << 40, std::size_t{1} << 30}) == kMax);
  CHECK(util::saturating_product({0, kMax, kMax}) == 0);
  CHECK(util::saturating_sum({kMax - 1, 1}) == kMax);
  CHECK(util::saturating_sum({kMax, 1}) == kMax);
  CHECK(util::format_bytes(512) == "512 bytes");
  CHECK(util::format_bytes(1536) == "1.5 KiB");
  CHECK(util::format_bytes(std::size_t{3} << 30) == "3.0 GiB");
  CHECK(util::format_bytes(kMax) == "more than 16 EiB");
}

TEST_CASE("memory: the limit is checked with the description built only when needed", "[util][memory]") {
  int built = 0;
  auto what = [&] {
    ++built;
    return std::string("a word of 9 symbols");
  };
  CHECK_NOTHROW(util::check_memory(100, 0, what));    // 0: no limit
  CHECK_NOTHROW(util::check_memory(100, 100, what));  // at the limit
  CHECK(built == 0);
  try {
    util::check_memory(2048, 1024, what);
    FAIL("no LimitError");
  } catch (const LimitError& e) {
    CHECK(e.limit() == Limit::kMemory);
    CHECK(std::string(e.what()) == "a word of 9 symbols needs about 2.0 KiB, over the limit of 1.0 KiB");
  }
  CHECK(built == 1);
  CHECK_THROWS_AS(util::check_memory(101, 100, "a corpus"), LimitError);
  CHECK_NOTHROW(util::check_memory(100, 100, "a corpus"));
}
