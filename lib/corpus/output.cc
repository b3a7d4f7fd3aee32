#include "corpus/output.h"

#include <fmt/format.h>

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>

#include "io/file_util.h"
#include "util/error.h"
#include "util/version.h"

namespace softhat::corpus {

std::string format_split(const std::vector<Example>& examples, const std::string& split, io::WordFormat format) {
  std::string out;
  for (const Example& e : examples) {
    if (format == io::WordFormat::kTsv) {
      out += e.word;
      if (e.kind == "task") out += "\t" + e.target + "\n";
      else out += e.label ? "\tTRUE\n" : "\tFALSE\n";
      continue;
    }
    nlohmann::ordered_json j;
    j["word"] = e.word;
    if (e.kind == "task") j["target"] = e.target;
    else j["label"] = e.label;
    j["length"] = e.word.size();
    j["split"] = split;
    j["kind"] = e.kind;
    if (!e.from.empty() || e.kind == "border") j["from"] = e.from;
    out += io::json_line(j);
    out += '\n';
  }
  return out;
}

std::string manifest_json(const Corpus& corpus, const ManifestInfo& info) {
  const GenerateOptions& o = *info.options;
  nlohmann::ordered_json m;
  m["softhat_version"] = kVersion;
  m["language"] = info.language;
  m["alphabet"] = info.alphabet;
  m["formula"] = info.formula;
  m["command"] = info.command;
  m["seed"] = o.seed;
  m["sampler"] = corpus.sampler;
  m["balance"] = o.balance;
  m["negatives"] = o.negatives == Negatives::kBorder ? "border" : "uniform";
  m["per_length"] = o.per_length;
  m["format"] = info.format == io::WordFormat::kTsv ? "tsv" : "jsonl";
  m["splits"] = nlohmann::ordered_json::array();
  for (std::size_t s = 0; s < o.splits.size(); ++s) {
    std::map<std::size_t, std::pair<std::size_t, std::size_t>> counts;  // length -> (positive, negative)
    for (const Example& e : corpus.splits[s]) {
      auto& c = counts[e.word.size()];
      (e.label ? c.first : c.second) += 1;
    }
    nlohmann::ordered_json split;
    split["name"] = o.splits[s].name;
    split["lengths"] = {o.splits[s].lo, o.splits[s].hi};
    split["file"] = o.splits[s].name + (info.format == io::WordFormat::kTsv ? ".tsv" : ".jsonl");
    split["words"] = corpus.splits[s].size();
    split["counts"] = nlohmann::ordered_json::object();
    const bool task = !corpus.splits[s].empty() && corpus.splits[s][0].kind == "task";
    for (const auto& [len, c] : counts) {
      if (task) split["counts"][std::to_string(len)] = {{"words", c.first + c.second}};
      else split["counts"][std::to_string(len)] = {{"positive", c.first}, {"negative", c.second}};
    }
    m["splits"].push_back(split);
  }
  m["shortages"] = nlohmann::ordered_json::array();
  for (const Shortage& s : corpus.shortages) {
    m["shortages"].push_back({{"split", s.split}, {"length", s.length}, {"kind", s.kind}, {"wanted", s.wanted},
                              {"got", s.got}});
  }
  return m.dump(2) + "\n";
}

void write_corpus_dir(const Corpus& corpus, const std::string& dir, const ManifestInfo& info) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw InputError(fmt::format("cannot create {}: {}", dir, ec.message()));
  const GenerateOptions& o = *info.options;
  for (std::size_t s = 0; s < o.splits.size(); ++s) {
    const std::string file = (std::filesystem::path(dir) / (o.splits[s].name + (info.format == io::WordFormat::kTsv
                                                                                    ? ".tsv"
                                                                                    : ".jsonl")))
                                 .string();
    io::write_file_atomically(file, format_split(corpus.splits[s], o.splits[s].name, info.format));
  }
  io::write_file_atomically((std::filesystem::path(dir) / "manifest.json").string(), manifest_json(corpus, info));
}

}  // namespace softhat::corpus
