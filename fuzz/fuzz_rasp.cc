// Fuzz target: the S-RASP front end and interpreter. Any text (at most 2,048
// bytes) either throws ProgramError whose line and column lie inside the
// text and whose message starts with "fuzz.srasp:LINE:COLUMN:", or parses;
// a parsed program then runs on every word up to length 3 over its alphabet
// (N at most 64 positions), where a word may only end in the interpreter's
// own per-word errors (64-bit overflow, a padded length out of range, an
// acceptor's missing verdict), never in anything else.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

#include "fuzz/fuzz_check.h"
#include "rasp/program.h"
#include "util/error.h"
#include "words/words.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace softhat;
  if (size > 2048) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  rasp::Program p;
  try {
    p = rasp::parse_program(text, "fuzz.srasp");
  } catch (const rasp::ProgramError& e) {
    std::size_t lines = 1;
    for (char c : text) lines += c == '\n';
    FUZZ_CHECK(e.line() >= 1 && e.line() <= lines + 1, "error line outside the text: " + std::string(e.what()));
    FUZZ_CHECK(std::string_view(e.what()).rfind("fuzz.srasp:" + std::to_string(e.line()) + ":" + std::to_string(e.column()) + ":", 0) == 0,
               "the message does not start with its position: " + std::string(e.what()));
    return 0;
  }
  FUZZ_CHECK(p.output >= 0 && static_cast<std::size_t>(p.output) < p.statements.size(), "no output statement");
  FUZZ_CHECK(!p.alphabet.empty(), "no alphabet");
  std::size_t max_len = 3;
  while (max_len > 1 && words::count_words(p.alphabet.size(), max_len) > 400) --max_len;
  words::for_each_word(p.alphabet, max_len, [&](const std::string& w) {
    try {
      const std::string out = rasp::run_program(p, w, 64);
      FUZZ_CHECK(out.find(p.pad_symbol) == std::string::npos, "the output keeps a '#'");
    } catch (const std::overflow_error&) {
    } catch (const InputError&) {  // the padding polynomial: negative, overflowing, or N past 64
    }
    return true;
  });
  return 0;
}
