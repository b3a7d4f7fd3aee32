// Benchmark corpora: balanced, reproducible, with exact length splits and
// near-miss negatives (MLRegTest's format and more).
//
// Every word of a split has one of the split's lengths, and each length n of
// a split holds N words (N = the split's words at n): ceil(N/2) positives and
// floor(N/2) negatives when balanced. For a regular language the minimal DFA
// (and its complement) gives exact uniform sampling of each class within a
// length; for a counting language, the checker's counting sampler where it
// has one, else rejection from uniform words (exactly uniform too, but rare
// classes may fall short). Border splits pair each negative with a positive
// of the split at edit distance 1: a substitution of a positive of the same
// length first, then an insertion into a positive one shorter or a deletion
// from one longer, where that length is also in the split; a negative is
// never of a length outside the split. Words are distinct within a split and
// across splits. Whatever falls short is a Shortage (the CLI refuses it
// unless --allow-shortage). The output depends only on the seed, never on
// --threads or shards.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "automata/dfa.h"
#include "util/memory.h"
#include "util/progress.h"
#include "lang/language.h"
#include "util/random.h"
#include "util/shard.h"

namespace softhat::corpus {

enum class Negatives { kUniform, kBorder };

struct Split {
  std::string name;
  std::vector<std::size_t> lengths;   // distinct, increasing
  std::optional<std::size_t> count;   // words in the split, spread evenly over its lengths; default: per_length each
  std::optional<Negatives> negatives;  // default: the options' negatives
  std::string file;                    // the file it is written to; default NAME.tsv or NAME.jsonl
};
// "NAME:LENGTHS[:COUNT][:uniform|border]", or "LENGTHS" alone (named "all");
// LENGTHS as everywhere: 20-29, 2,4,8, 0-6,64 (words::parse_length_list).
Split parse_split(const std::string& text);
// The lengths in their shortest form: "20-29", "2-4,7".
std::string format_lengths(const std::vector<std::size_t>& lengths);

struct GenerateOptions {
  std::vector<Split> splits;
  std::size_t per_length = 100;  // words per length (ceil(N/2) positives, floor(N/2) negatives when balanced)
  bool balance = true;
  Negatives negatives = Negatives::kUniform;
  std::uint64_t seed = kDefaultSeed;
  int threads = 1;
  bool shuffle = true;
  std::size_t max_states = automata::kDefaultMaxStates;  // the CLI passes --max-states
  std::size_t max_memory = util::kDefaultMaxMemory;       // the CLI passes --max-memory (the samplers' tables)
  std::vector<std::string> exclude;  // words never emitted (e.g. another corpus), symbol codes
  util::Progress* progress = nullptr;  // told of every length drawn and paired (never changes the corpus)
};

// The words split `s` wants at length n, and the kind of its negatives.
std::size_t words_at(const GenerateOptions& o, const Split& s, std::size_t n);
Negatives negatives_of(const GenerateOptions& o, const Split& s);

struct Example {
  std::string word;
  bool label = false;
  std::string kind;  // positive, negative, border, natural, task
  std::string from;  // border: the positive it was derived from
  std::string target;  // tasks: the oracle's output for the word (label unused)
};

// A length of a split with fewer words of a kind
// (positive, negative, natural, task) than wanted. `exists`: how many words
// of that class the length has, where the sampler knows ("" if not).
struct Shortage {
  std::string split;
  std::size_t length;
  std::string kind;
  std::size_t wanted, got;
  std::string exists;
};

struct Corpus {
  std::vector<std::vector<Example>> splits;  // parallel to options.splits
  std::vector<Shortage> shortages;
  std::string sampler;  // how words were drawn
};

// The message strict balance gives for a shortage ("split train length 5:
// 0 positive words exist, 3 wanted").
std::string describe_shortage(const Shortage& s);

// The sampling method a language gets (for `analyze` and the manifest).
std::string sampling_method(const lang::Language& language);

Corpus generate_corpus(const lang::Language& language, const GenerateOptions& options);

// MLRegTest's six splits (Train, Dev and the short tests at lengths 20-29,
// the long tests at 31-50), `count` words each; SR/LR uniform, SA/LA border;
// files <name>_<split>.txt.
std::vector<Split> mlregtest_splits(const std::string& name, std::size_t count);
// Words a split of an MLRegTest size holds: small 1,000, mid 10,000, large
// 100,000; throws InputError for another name.
std::size_t mlregtest_split_size(const std::string& size);

// The same in two steps, for shards: the words of each length (every length
// of the splits, in increasing order; a shard takes a contiguous part of
// them), then the assembly (each split shuffled with its own seeded stream).
// Assembling the units of all shards, in length order, gives exactly
// generate_corpus's corpus.
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
