#pragma once

// The S-RASP -> average-hard transformer compiler: every statement becomes
// FFN units and attention heads of a model the engine runs from its weights
// alone (docs/srasp.md, "The compiler", has the layout and the gap table).

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "model/forward.h"
#include "model/transformer.h"
#include "rasp/program.h"

namespace softhat::rasp {

// A valid program that uses a construct outside the compiled subset; the
// message names the statement, its line and what the compiler supports.
class CompileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The analytic score gap of one head: coefficient / M^power, M = N + 1
// (N the padded length; the BOS position makes N + 1 positions).
struct HeadGap {
  int layer = 0;
  int head = 0;
  std::string label;
  double coefficient = 0;  // 0: a uniform head (every score ties; no gap needed)
  int power = 0;
  double at(std::int64_t padded) const;
};

// A coordinate that is 1 at a position where an integer leaves the range the
// construction is exact for (a word with one is refused, never answered).
struct RangeFlag {
  int coordinate = 0;
  std::string what;
};

struct CompiledProgram {
  model::Transformer model;  // a transducer: one output symbol per position, '#' for none
  std::vector<HeadGap> gaps;
  std::vector<RangeFlag> flags;
  std::string pad_symbol;
  // The smallest analytic gap at padded length N (infinity without gapped heads).
  double min_gap(std::int64_t padded) const;
};

// Throws CompileError for constructs outside the compiled subset.
CompiledProgram compile_program(const Program& program);

// The schedule of §4.5 for the compiled gaps: beta(N) = 8 ln(M) / gamma(N),
// which is c * M^a * ln(M) in the model's own schedule form.
model::BetaSchedule scheduled_beta(const CompiledProgram& compiled);

struct CompiledRun {
  std::string output;   // '#' deleted
  std::string raw;      // one symbol per padded position
  double beta = 0;
  double min_symbol_margin = 0;
  std::optional<std::string> range_error;  // set: the output is not to be trusted and is empty
  model::RunResult result;
};

// Pads `word` (symbol codes), runs the engine and reads the transduction.
CompiledRun run_compiled(const Program& program, const CompiledProgram& compiled, const model::Engine& engine,
                         std::string_view word, const model::RunOptions& options);

}  // namespace softhat::rasp
