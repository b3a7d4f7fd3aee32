// Writing corpora: TSV (MLRegTest's word<TAB>TRUE|FALSE) or JSONL (with
// length, split, label, kind and, for border negatives, the positive they
// came from); to a stream, or to a folder with one file per split and a
// manifest.json that says how to regenerate it. Files are written whole or
// not at all.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "corpus/generate.h"
#include "io/word_stream.h"

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

}  // namespace softhat::corpus
