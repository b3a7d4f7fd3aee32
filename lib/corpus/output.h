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
// The file a split is written to: its `file`, else NAME.tsv / NAME.jsonl.
std::string split_file(const Split& split, io::WordFormat format);

struct ManifestInfo {
  std::string language, alphabet, formula, command;
  const GenerateOptions* options = nullptr;
  io::WordFormat format = io::WordFormat::kTsv;
  nlohmann::ordered_json source;  // how to rebuild the oracle (validate): names, formula, regex, att
  bool allow_shortage = false;
};

// Refuses, before any work, an --out that cannot become this corpus: a file,
// a folder that cannot be written, or a non-empty folder that is not a
// softhat corpus (no manifest.json of one) unless `force`.
void check_corpus_target(const std::string& dir, bool force);

// Writes DIR/<split file>... and DIR/manifest.json into a fresh sibling
// folder, then puts it in DIR's place (an earlier corpus there goes whole:
// no stale file survives). Folders and files get the umask's modes.
void write_corpus_dir(const Corpus& corpus, const std::string& dir, const ManifestInfo& info);
// The manifest of these split files (counts and SHA-256 read from the bytes
// as written: `files` holds each split's contents, parallel to the splits).
std::string manifest_json(const Corpus& corpus, const ManifestInfo& info, const std::vector<std::string>& files);

// A shard of `generate --shard K/N`: the shard's length units and everything
// the merge needs to finish the corpus exactly as one run would (options,
// sampler, language, and the command without --shard and --out).
std::string corpus_shard_json(const std::vector<LengthUnit>& units, const ManifestInfo& info, const Shard& shard,
                              const std::string& sampler, const std::vector<std::string>& command_args);

struct MergedCorpus {
  Corpus corpus;
  GenerateOptions options;
  std::string language, alphabet, formula;
  nlohmann::ordered_json source;
  bool allow_shortage = false;
  std::vector<std::string> command_args;  // the single run's command, without --out
  io::WordFormat format = io::WordFormat::kTsv;
};
// Throws InputError unless the files are the shards 0..N-1 of one generate
// run (same run_id: options, language, sampler, version and shard count),
// each once and unedited (each carries the checksum of its own content);
// `names` (the files) label the errors.
// The run_id a corpus shard must carry: sha256 of the keys that identify its
// run and of its shard count.
std::string corpus_run_id(const nlohmann::json& shard);
MergedCorpus merge_corpus_shards(const std::vector<nlohmann::json>& shards, const std::vector<std::string>& names = {});

}  // namespace softhat::corpus
