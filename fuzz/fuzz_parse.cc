// Fuzz target: the formula parser. Any input either parses or throws
// ParseError (never another exception, a crash or a hang); a parsed formula
// printed and parsed again is the same (interned) formula.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "fuzz/fuzz_check.h"
#include "logic/parse.h"
#include "logic/print.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace softhat::logic;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  Formula f;
  try {
    f = parse(text, "ab01(");
  } catch (const ParseError& e) {
    FUZZ_CHECK(e.offset() <= size, "error offset beyond the input");
    return 0;
  }
  const std::string printed = to_string(f);
  Formula again;
  try {
    again = parse(printed, "ab01(");
  } catch (const ParseError& e) {
    FUZZ_FAIL("the printed form does not parse: " + printed + ": " + e.what());
  }
  FUZZ_CHECK(again == f, "print/parse round trip changed the formula: " + printed);
  return 0;
}
