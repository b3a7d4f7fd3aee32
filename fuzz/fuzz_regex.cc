// Fuzz target: regex -> minimal DFA (automata/regex_dfa.h), against RE2.
// Any input (at most 256 bytes) over the alphabet {a, b, á, -, {}, either
// throws RegexError with an offset inside the pattern that its message
// names, or LimitError (2,000 states), or gives a DFA; then RE2 (UTF-8,
// dot_nl, as RegexOracle runs it) accepts the pattern too, the DFA is
// minimal, and it agrees with RE2 FullMatch on every word up to length 4.
// Whatever RE2 refuses dfa_from_regex must refuse.
#include <re2/re2.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "automata/dfa.h"
#include "automata/regex_dfa.h"
#include "fuzz/fuzz_check.h"
#include "oracle/regex_oracle.h"
#include "util/symbols.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace softhat;
  if (size > 256) return 0;  // RE2 and the exhaustive comparison stay cheap
  static const std::string alphabet = sym::declare("abá-{");
  const std::string pattern(reinterpret_cast<const char*>(data), size);
  automata::Dfa dfa;
  try {
    dfa = automata::dfa_from_regex(pattern, alphabet, 2000);
  } catch (const automata::RegexError& e) {
    FUZZ_CHECK(e.offset() <= size, "error offset beyond the pattern: " + std::string(e.what()));
    FUZZ_CHECK(std::string(e.what()).find("at byte " + std::to_string(e.offset())) != std::string::npos,
               "the message does not name the offset: " + std::string(e.what()));
    return 0;
  } catch (const automata::LimitError&) {
    return 0;
  }
  RE2::Options options;
  options.set_encoding(RE2::Options::EncodingUTF8);
  options.set_max_mem(std::int64_t{512} << 20);
  options.set_log_errors(false);
  options.set_dot_nl(true);
  const RE2 re(pattern, options);
  if (re.error_code() == RE2::ErrorPatternTooLarge) return 0;  // RE2's own program-size limit
  FUZZ_CHECK(re.ok(), "accepted a pattern RE2 refuses: '" + pattern + "': " + re.error());
  FUZZ_CHECK(automata::minimize(dfa).states() == dfa.states(), "the DFA is not minimal for '" + pattern + "'");
  const oracle::RegexOracle oracle(pattern, "fuzz");
  const auto bad = oracle::first_disagreement(dfa, oracle, 781);  // 5^0 + ... + 5^4
  FUZZ_CHECK(!bad, "the DFA and RE2 disagree on '" + sym::encode(bad ? *bad : std::string()) + "' for '" +
                       pattern + "'");
  return 0;
}
