// Failure reporting for the fuzz targets: a violated property aborts, which
// libFuzzer records as a crash with the input that caused it.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>

namespace softhat::fuzz {
[[noreturn]] inline void fail(const std::string& what, const char* file, int line) {
  std::fprintf(stderr, "fuzz property violated at %s:%d: %s\n", file, line, what.c_str());
  std::abort();
}
}  // namespace softhat::fuzz

#define FUZZ_FAIL(what) ::softhat::fuzz::fail((what), __FILE__, __LINE__)
#define FUZZ_CHECK(cond, what) \
  do {                         \
    if (!(cond)) FUZZ_FAIL(what); \
  } while (0)
