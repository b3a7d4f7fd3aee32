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

#include "model/exact_ahat.h"
#include "model/forward.h"
#include "model/transformer.h"
#include "rasp/program.h"
#include "util/error.h"
#include "util/memory.h"

namespace softhat::rasp {

// A valid program that uses a construct outside the compiled subset; the
// message names the statement, its line and what the compiler supports.
class CompileError : public InputError {
 public:
  using InputError::InputError;
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

// Throws CompileError for constructs outside the compiled subset, and a
// LimitError (Limit::kMemory) before allocating weights that would take more
// than max_memory bytes (--max-memory; 0: no limit).
CompiledProgram compile_program(const Program& program, std::size_t max_memory = util::kDefaultMaxMemory);

// The schedule of §4.5 for the compiled gaps: beta(N) = 8 ln(M) / gamma(N),
// which is c * M^a * ln(M) in the model's own schedule form.
model::BetaSchedule scheduled_beta(const CompiledProgram& compiled);

// The layer plan and gap table `rasp compile` prints.
std::string describe_plan(const Program& program, const CompiledProgram& compiled);

// The exact AHAT's transduction of a program model (rational arithmetic, exact
// ties: the hard-mode reference), with its run kept in `run` when given.
// Throws std::invalid_argument like model::program_output.
std::string exact_transduction(const model::ExactAhat& ahat, const model::ModelConfig& config, std::string_view word,
                               model::ExactRun* run = nullptr);

}  // namespace softhat::rasp
