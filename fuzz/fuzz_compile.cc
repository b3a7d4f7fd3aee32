// Fuzz target: formula -> DFA and formula -> transformer, differentially.
// An input that parses over {a,b} as a small formula is checked on every
// word up to length 6: the reference evaluator, the minimal DFA (regular
// formulas) and the compiled transformer (softmax at its schedule's beta,
// and hard attention) must all agree. Any disagreement aborts.
#include <cstdint>
#include <string>
#include <string_view>

#include "automata/dfa.h"
#include "compile/compiler.h"
#include "fuzz/fuzz_check.h"
#include "logic/eval.h"
#include "logic/parse.h"
#include "logic/print.h"
#include "model/forward.h"
#include "util/error.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace softhat;
  if (size > 64) return 0;  // small formulas: every word to length 6 stays cheap
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const std::string alphabet = "ab";
  logic::Formula f;
  try {
    logic::ParseOptions po;
    po.alphabet = alphabet;
    po.max_depth = 12;
    f = logic::parse(text, po);
  } catch (const logic::ParseError&) {
    return 0;
  }
  const std::string shown = logic::to_string(f);
  std::optional<automata::Dfa> dfa;
  if (!(f->bits & logic::kCountBit)) {
    try {
      dfa = automata::minimize(automata::dfa_from_formula(f, alphabet, 2000));
    } catch (const InputError&) {
      return 0;  // over a limit (states, the mod period), said clearly
    }
  }
  compile::Compiled compiled;
  try {
    // The weights within 64 MiB, as --max-memory would bound them: the
    // fuzzer runs in 4 GiB, and mod(111111, 0) (in a counting formula, so no
    // DFA limit stops it first) asks for 92 GiB of position projection. At
    // 64 MiB (mod(2850, r)) one input took 6 s under ASan beside a build;
    // at 256 MiB (mod(5700, r)) 16 s, near the 30 s timeout.
    compile::CompileOptions options;
    options.max_memory = std::size_t{64} << 20;
    compiled = compile::compile_formula(f, alphabet, options);
  } catch (const InputError&) {
    return 0;  // outside the compiler's fragment, or over the memory limit (said so clearly)
  }
  const model::Engine engine(std::move(compiled.model));
  model::RunOptions hard;
  hard.mode = model::AttentionMode::kHard;
  std::string w;
  for (std::size_t n = 0; n <= 6; ++n) {
    for (std::size_t code = 0; code < (std::size_t{1} << n); ++code) {
      w.assign(n, 'a');
      for (std::size_t i = 0; i < n; ++i) {
        if ((code >> i) & 1) w[i] = 'b';
      }
      const bool expected = logic::accepts(f, w);
      if (dfa) FUZZ_CHECK(dfa->accepts(w) == expected, "DFA disagrees with the evaluator on '" + w + "' for " + shown);
      FUZZ_CHECK(engine.run(w).accepted == expected, "softmax transformer disagrees on '" + w + "' for " + shown);
      FUZZ_CHECK(engine.run(w, hard).accepted == expected, "hard transformer disagrees on '" + w + "' for " + shown);
    }
  }
  return 0;
}
