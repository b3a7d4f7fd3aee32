// Benchmark corpora: balanced, reproducible, with length splits and
// near-miss negatives (MLRegTest's format and more).
//
// For a regular language the minimal DFA (and its complement) gives exact
// uniform sampling of positives and of negatives within each length; for a
// counting language, words are drawn uniformly from all words of the length
// and kept by class (rejection: exactly uniform too, but rare classes may
// fall short). Border negatives are, for each positive, a uniformly chosen
// word at edit distance exactly 1 (substitution, insertion or deletion) that
// is not in the language. Words are distinct within a split and across
// splits. The output depends only on the seed, never on --threads.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "automata/dfa.h"
#include "lang/language.h"
#include "util/random.h"
#include "util/shard.h"

namespace softhat::corpus {

struct Split {
  std::string name;
  std::size_t lo = 0, hi = 0;  // lengths lo..hi inclusive
};
// "train:20-29", or "20-29" (named "all").
Split parse_split(const std::string& text);

enum class Negatives { kUniform, kBorder };

struct GenerateOptions {
  std::vector<Split> splits;
  std::size_t per_length = 100;  // positives and negatives each (balanced), or words (natural)
  bool balance = true;
  Negatives negatives = Negatives::kUniform;
  std::uint64_t seed = kDefaultSeed;
  int threads = 1;
  bool shuffle = true;
  std::size_t max_states = automata::kDefaultMaxStates;  // the CLI sets the global --max-states
};

struct Example {
  std::string word;
  bool label = false;
  std::string kind;  // positive, negative, border, natural, task
  std::string from;  // border: the positive it was derived from
  std::string target;  // tasks: the oracle's output for the word (label unused)
};

// A length of a split with fewer words of a kind (positive, negative,
// border, natural, task) than wanted.
struct Shortage {
  std::string split;
  std::size_t length;
  std::string kind;
  std::size_t wanted, got;
};

// Border negatives of a split dropped because they duplicated another word.
struct DroppedDuplicates {
  std::string split;
  std::size_t count = 0;
};

struct Corpus {
  std::vector<std::vector<Example>> splits;  // parallel to options.splits
  std::vector<Shortage> shortages;
  std::vector<DroppedDuplicates> dropped;
  std::string sampler;  // how words were drawn
};

// The sampling method a language gets (for `analyze` and the manifest).
std::string sampling_method(const lang::Language& language);

Corpus generate_corpus(const lang::Language& language, const GenerateOptions& options);

// The same in two steps, for shards: the words of each length (every length
// of the splits, in increasing order; a shard takes a contiguous part of
// them), then the assembly (duplicates across lengths dropped, each split
// shuffled with its own seeded stream). Assembling the units of all shards,
// in length order, gives exactly generate_corpus's corpus.
struct LengthUnit {
  std::size_t length = 0;
  std::vector<std::vector<Example>> per_split;  // parallel to the splits
  std::vector<Shortage> shortages;
};
std::vector<LengthUnit> generate_units(const lang::Language& language, const GenerateOptions& options,
                                       const Shard& shard);
Corpus assemble_corpus(const std::vector<LengthUnit>& units, const GenerateOptions& options,
                       const std::string& sampler);

// Every word at edit distance exactly 1 from `word` (distinct, sorted).
std::vector<std::string> edit_neighbours(const std::string& word, const std::string& alphabet);

}  // namespace softhat::corpus
