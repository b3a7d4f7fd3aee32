// verify --mlregtest-splits: the benchmark-scale check. Per language:
// compile its transformer, generate MLRegTest's six splits (corpus/generate.h)
// and run the transformer on every word against the corpus label. One JSONL
// row per language, appended to a results file as soon as the language is
// done, so that a run stopped at any point resumes where it stopped
// (docs/performance.md, "Verify at scale").
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <map>
#include <string>

#include "compile/compiler.h"
#include "lang/language.h"
#include "model/forward.h"
#include "util/memory.h"
#include "util/progress.h"
#include "util/random.h"

namespace softhat::verify {

struct ScaleOptions {
  std::string size = "small";  // MLRegTest's small (1,000 words a split), mid or large
  std::uint64_t seed = kDefaultSeed;
  compile::CompileOptions compile;
  model::AttentionMode mode = model::AttentionMode::kSoftmax;
  model::Precision precision = model::Precision::kDouble;
  std::optional<model::BetaSchedule> beta;
  int threads = 1;  // words generated and run in parallel; rows do not depend on it
  std::size_t max_memory = util::kDefaultMaxMemory;
  std::size_t max_states = automata::kDefaultMaxStates;
  util::Progress* progress = nullptr;  // told of every word run
  std::string beta_text;  // the --beta expression as given ("" if none), recorded in each row
  // --float32: per language the float32 check of compile --float32
  // (verify/float32.h) before the splits, which then run in float32 where
  // the claim holds and in double where it does not (precision is ignored).
  bool float32 = false;
};

// One language's row: "language", the run's parameters ("size", "seed",
// "mode", "precision", "pe", "beta"), "status" (agree, disagree, not-star-free
// or error), the corpus ("words", "shortages"), the model's
// shape and nonzero weights, per split the words, agreements and accepted
// words, the smallest output margin, and the first disagreement in corpus
// order. With float32, the row's "precision" is "float32-where-claimed" and it
// also has "float32" (the check: claimed, its numbers, the first failing word
// if not) and "ran_in" (float or double). Deterministic: no timings, the
// same for any thread count.
// The language is built by `build` inside the row's error handling: one that
// cannot be read or built (a malformed .att file, too many states) gets an
// "error" row named `name` with the "message", as does one that cannot be
// checked, and the caller goes on to the next.
nlohmann::ordered_json verify_at_scale(const std::string& name, const std::function<lang::Language()>& build,
                                       const ScaleOptions& options);

// The languages a results file already holds, with their status. Every
// complete line must be a row of this run's parameters (else an InputError
// naming the file and line, the file untouched); then a torn last line (a run
// stopped mid-write: the start of a row without its newline) is cut off the
// file. Blank lines are skipped.
std::map<std::string, std::string> completed_languages(const std::string& path, const ScaleOptions& options);

// The nonzero entries of every tensor of a model (a row's model.nonzero_weights).
std::int64_t nonzero_weights(const model::Transformer& t);

// Appends one row as one line, flushed to the disk before returning.
void append_row(const std::string& path, const nlohmann::ordered_json& row);

}  // namespace softhat::verify
