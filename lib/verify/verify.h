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
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "compile/compiler.h"
#include "lang/language.h"
#include "model/forward.h"
#include "util/memory.h"
#include "util/progress.h"
#include "util/shard.h"
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
  int threads = 1;  // words tested in parallel; the report does not depend on it
  std::size_t max_memory = util::kDefaultMaxMemory;  // --max-memory: sampled words, samplers, engine workspaces
  Shard shard;      // this run's part of every row (--shard K/N, util/shard.h)
  // verify --model: this model file is tested instead of the language's
  // compiled transformer (model_name: its path, recorded in the report).
  std::shared_ptr<const model::Transformer> model;
  std::string model_name;
  util::Progress* progress = nullptr;  // told of every word tested (never changes the report)
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
  std::optional<Disagreement> shortest;  // the first shortest, in row order and word order
  int shortest_row = -1;
  std::uint64_t shortest_index = 0;  // its index within its row (for merging shards)
  bool task = false;  // a transduction: rows count positions too
  bool ok() const { return disagreements == 0; }
};

VerifyReport verify_language(const lang::Language& language, const VerifyOptions& options);
std::string format_verify_reports(const std::vector<VerifyReport>& reports);
nlohmann::ordered_json verify_reports_json(const std::vector<VerifyReport>& reports, const VerifyOptions& options);

// Shard reports (verify --shard K/N --json) combined into what one run would
// have reported: counts summed, minima taken, the first shortest disagreement
// (by length, row, index). Throws InputError unless the reports are the
// shards 0..N-1 of one run (same seed, options, lengths, samples, beta and
// languages), each once and unedited.
struct MergedVerify {
  std::vector<VerifyReport> reports;
  VerifyOptions options;
};
// Each shard must carry its checksum (content_checksum) and the run_id of
// the parameters that define the run; `names` (the files) label errors.
MergedVerify merge_verify_json(const std::vector<nlohmann::json>& shards, const std::vector<std::string>& names = {});
// sha256 of the keys that identify a run (seed, pe, mode, precision, model, run).
std::string run_id(const nlohmann::json& report);
// sha256 of the report without its "checksum" (and the CLI's "command").
std::string content_checksum(const nlohmann::json& report);

}  // namespace softhat::verify
