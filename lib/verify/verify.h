// Verification of compiled transformers: for each language, the softmax
// transformer compiled from its formula is run beside the formula evaluator
// and the language's oracles (regex, checker) on every word up to a length
// and on seeded random words of given lengths. Reported per length: the
// agreement rate, and the minimum target mass, scaled score gap and output
// margin over all attention rows of all words (definitions in
// architecture.md, "Margins"). A transduction task is verified per position:
// the transformer's output symbol against the task's oracle at every position
// of every word (random words from the task's generator, and uniform ones).
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "compile/compiler.h"
#include "lang/language.h"
#include "model/forward.h"
#include "verify/check.h"

namespace softhat::verify {

struct VerifyOptions {
  std::optional<std::size_t> max_len;
  std::vector<std::size_t> lengths = {100, 1000};
  std::size_t samples = 100;
  std::uint64_t seed = kDefaultSeed;
  compile::CompileOptions compile;
  model::AttentionMode mode = model::AttentionMode::kSoftmax;
  model::Precision precision = model::Precision::kDouble;
  std::optional<model::BetaSchedule> beta;  // --beta override
};

struct VerifyRow {
  std::string label;
  std::uint64_t words = 0;
  std::uint64_t agreed = 0;
  std::uint64_t positives = 0;  // accepted by the transformer
  double min_target_mass = 1.0;
  double min_scaled_gap = model::kNoGap;
  double min_output_margin = model::kNoGap;  // tasks: the smallest symbol margin
  std::uint64_t positions = 0;         // tasks: output positions compared
  std::uint64_t positions_agreed = 0;  // tasks: positions whose symbol equals the oracle's
};

struct VerifyReport {
  std::string language;
  std::string skipped;  // why the language was not verified; empty if it was
  std::vector<std::string> sources;
  int layers = 0, heads = 0, width = 0;
  std::string beta;
  std::size_t max_len = 0;
  std::vector<VerifyRow> rows;
  std::uint64_t words = 0;
  std::uint64_t disagreements = 0;
  std::optional<Disagreement> shortest;
  bool task = false;  // a transduction: rows count positions too
  bool ok() const { return disagreements == 0; }
};

VerifyReport verify_language(const lang::Language& language, const VerifyOptions& options);
std::string format_verify_reports(const std::vector<VerifyReport>& reports);
nlohmann::ordered_json verify_reports_json(const std::vector<VerifyReport>& reports, const VerifyOptions& options);

}  // namespace softhat::verify
