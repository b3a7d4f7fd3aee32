// Writing corpora: TSV (MLRegTest's word<TAB>TRUE|FALSE) or JSONL (with
// length, split, label, kind and, for border negatives, the positive they
// came from); to a stream, or to a folder with one file per split and a
// manifest.json that says how to regenerate it. Files are written whole or
// not at all. Words and alphabets are symbol codes here and UTF-8 in every
// file (util/symbols.h); `length` counts symbols.
#pragma once

#include <iosfwd>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "corpus/generate.h"
#include "io/word_stream.h"
#include "util/shard.h"

namespace softhat::corpus {

std::string format_split(const std::vector<Example>& examples, const std::string& split, io::WordFormat format);

struct ManifestInfo {
  std::string language, alphabet, formula, command;
  const GenerateOptions* options = nullptr;
  io::WordFormat format = io::WordFormat::kTsv;
};

// Writes DIR/<split>.tsv|.jsonl and DIR/manifest.json; creates DIR.
void write_corpus_dir(const Corpus& corpus, const std::string& dir, const ManifestInfo& info);
std::string manifest_json(const Corpus& corpus, const ManifestInfo& info);

// A shard of `generate --shard K/N`: the shard's length units and everything
// the merge needs to finish the corpus exactly as one run would (options,
// sampler, language, and the command without --shard and --out).
std::string corpus_shard_json(const std::vector<LengthUnit>& units, const ManifestInfo& info, const Shard& shard,
                              const std::string& sampler, const std::vector<std::string>& command_args);

struct MergedCorpus {
  Corpus corpus;
  GenerateOptions options;
  std::string language, alphabet, formula;
  std::vector<std::string> command_args;  // the single run's command, without --out
  io::WordFormat format = io::WordFormat::kTsv;
};
// Throws InputError unless the files are the shards 0..N-1 of one generate
// run (same options and language), each once.
MergedCorpus merge_corpus_shards(const std::vector<nlohmann::json>& shards);

}  // namespace softhat::corpus
