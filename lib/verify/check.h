// Differential checking of a language's verdict sources: the formula
// evaluator, the RE2 regex and the hand-written checker run on the same
// words (every word up to a length, then seeded random words of given
// lengths) and every disagreement is counted; the shortest one is kept.
// This is RE2's tester habit: all engines, same inputs, first disagreement.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "lang/language.h"
#include "util/memory.h"
#include "util/random.h"
#include "util/verdict.h"

namespace softhat::verify {

struct VerdictSource {
  std::string name;
  std::function<bool(std::string_view)> accepts;
};

// formula (evaluator), regex, checker, dfa (minimal DFA built from the
// formula), in that order, as the language has them.
std::vector<VerdictSource> verdict_sources(const lang::Language& language);

// The verdict a language's oracle gives a word, as simulate and sweep compare
// it: accept/reject from its regex, checker, automaton or DFA (the formula
// evaluator only if there is nothing else), or a task's output.
std::function<Verdict(const std::string&)> oracle_verdict(const lang::Language& language);

struct CheckOptions {
  std::optional<std::size_t> max_len;  // default: words::default_max_len(|alphabet|)
  std::vector<std::size_t> lengths = {100, 1000};
  std::size_t samples = 100;
  std::uint64_t seed = kDefaultSeed;
  std::size_t max_memory = util::kDefaultMaxMemory;  // --max-memory: the sampled words and their samplers
};

struct Disagreement {
  std::string word;
  std::vector<bool> verdicts;  // one per source
  std::vector<std::string> outputs;  // tasks: the transformer's output, then the oracle's
};

// The one comparison of several deciders on a word, shared by check (the
// oracles alone) and verify (the transformer, then the oracles): appends
// every source's verdict on `word` to `verdicts` (which may already hold the
// deciders before them) and says whether all of them agree.
bool append_verdicts(const std::string& word, const std::vector<VerdictSource>& sources, std::vector<bool>& verdicts);

// The one order in which every report keeps its shortest disagreement:
// a shorter word first, then the earlier row, then the earlier index in the
// row. Threads, shards and merges all keep the disagreement that one pass
// in order would have found first. True if (word, row, index) comes before
// `current` at (current_row, current_index).
bool comes_first(const std::string& word, int row, std::uint64_t index, const std::optional<Disagreement>& current,
                 int current_row, std::uint64_t current_index);

struct CheckRow {
  std::string label;  // "0-10 (all)" or "1000"
  std::uint64_t words = 0;
  std::uint64_t agreed = 0;
  std::uint64_t positives = 0;  // accepted by the first source
};

struct CheckReport {
  std::string language;
  std::string skipped;  // why the language was not checked; empty if it was
  std::vector<std::string> sources;
  std::size_t max_len = 0;
  std::vector<CheckRow> rows;
  std::uint64_t words = 0;
  std::uint64_t disagreements = 0;
  std::optional<Disagreement> shortest;
  bool ok() const { return disagreements == 0; }
};

// Throws InputError if the language has fewer than two verdict sources.
CheckReport check_language(const lang::Language& language, const CheckOptions& options);

// Plain-text report: one table row per language and length, then the
// shortest disagreement of each failing language.
std::string format_check_reports(const std::vector<CheckReport>& reports);
// The same as JSON (docs/json.md: check).
nlohmann::ordered_json check_reports_json(const std::vector<CheckReport>& reports, const CheckOptions& options);

}  // namespace softhat::verify
