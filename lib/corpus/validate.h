// Reading a corpus back and re-checking it: `softhat validate DIR` and the
// check `merge` runs on a merged corpus before writing it. A corpus is the
// folder generate writes: one file per split (TSV word<TAB>TRUE|FALSE, or
// word<TAB>OUTPUT for tasks; or JSONL with "word" and "accepted" or "output",
// the older "label" and "target" read too)
// and a manifest.json that lists the splits with their lengths, counts and
// SHA-256 (docs/corpora.md).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "io/word_stream.h"

namespace softhat::corpus {

// One line of a split file: the word (UTF-8 as written) and its second
// column ("TRUE", "FALSE" or a task's target).
struct CorpusLine {
  std::string word;
  std::string label;
  std::size_t line = 0;  // from 1
};
// Throws InputError naming `file` and the line for a line that is not a record.
std::vector<CorpusLine> read_split_lines(std::string_view contents, io::WordFormat format, const std::string& file);

// Per length: (positives, negatives), or for tasks (words, 0). Lengths count
// symbols (code points).
std::map<std::size_t, std::pair<std::size_t, std::size_t>> count_by_length(const std::vector<CorpusLine>& lines);

struct Problem {
  std::string file;      // as the manifest names it
  std::size_t line = 0;  // 0: the file as a whole
  std::string what;
};

// What validation needs besides the files: the corpus's alphabet (symbol
// codes) and the oracle's second column for a word (its symbol codes):
// "TRUE"/"FALSE", or a task's target in UTF-8.
struct Oracle {
  std::string alphabet;
  std::function<std::string(const std::string& word)> expected;
};

// Checks, split by split in the manifest's order, line by line: every word's
// symbols, its length in the split's lengths, its label against the oracle,
// no word twice (within or across splits); then the counts per length
// against the manifest, the balance (ceil(N/2) positives, floor(N/2)
// negatives at each length, except where the manifest records a shortage),
// in border splits that every negative has a positive of the split at edit
// distance 1, and last the file's SHA-256 against the manifest's. `read` returns a file's bytes, or nullopt if it
// is missing. Returns the first problem, or nullopt for a valid corpus.
std::optional<Problem> validate_corpus(const nlohmann::json& manifest,
                                       const std::function<std::optional<std::string>(const std::string&)>& read,
                                       const Oracle& oracle);

}  // namespace softhat::corpus
