// Scoring predictions against a labelled corpus (softhat score): accuracy
// per split and per length, overall, and the macro-average over lengths, as
// MLRegTest and FLaRe report them. A corpus is a folder written by generate
// (its manifest's splits, in order) or TSV/JSONL files, one split each, named
// after the file (train.tsv -> train, x_TestLA.txt -> TestLA). Words are
// UTF-8 as in the files; lengths count code points.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace softhat::score {

struct Item {
  std::size_t split = 0;  // index into ScoreCorpus::splits
  std::string word;       // UTF-8
  std::string label;      // TRUE, FALSE, or a task's target
  std::string file;
  std::size_t line = 0;
};

struct ScoreCorpus {
  std::vector<std::string> splits;  // names, in order
  std::vector<Item> items;          // every split's lines, in order
};

// The split a file holds: its name without the extension, and without
// everything up to the last '_' (MLRegTest's <language>_<split>.txt).
std::string split_name(const std::string& file);

// Reads a corpus folder or files. Throws InputError naming the file and line
// of a line that is not a record, or a split named twice.
ScoreCorpus read_corpus(const std::vector<std::string>& paths);

// The predicted label of every item, from a predictions text: lines
// word<TAB>TRUE|FALSE (further columns ignored: classify's error records
// count as wrong), or JSONL records with "word" and "accepted", "label" or
// "output". In corpus order, or keyed by word (when the words are not the
// corpus's in order). Throws InputError naming the line of a duplicate key,
// a word the corpus does not have, or a corpus word with no prediction.
std::vector<std::string> match_predictions(const ScoreCorpus& corpus, std::string_view text, const std::string& file);

struct Cell {
  std::uint64_t words = 0, correct = 0;
  double accuracy() const { return words ? static_cast<double>(correct) / static_cast<double>(words) : 0.0; }
};
struct SplitScore {
  std::string name;
  Cell total;
  std::map<std::size_t, Cell> lengths;
  double macro = 0;  // mean of the per-length accuracies
};
struct ScoreReport {
  Cell overall;
  double macro = 0;  // mean over every (split, length) cell
  std::vector<SplitScore> splits;
};

ScoreReport score(const ScoreCorpus& corpus, const std::vector<std::string>& predicted);

// The table for eyes; the JSON of docs/json.md ("overall", "splits" with
// "lengths", each {"words", "correct", "accuracy"}, plus "macro_accuracy");
// accuracy against length, one line per split, split boundaries marked.
std::string format_score(const ScoreReport& report);
nlohmann::ordered_json score_json(const ScoreReport& report);
std::string score_svg(const ScoreReport& report, const std::string& title);

}  // namespace softhat::score
