#include "corpus/output.h"

#include <fmt/format.h>

#include <stdlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>

#include "io/file_util.h"
#include "util/error.h"
#include "util/interrupt.h"
#include "util/symbols.h"
#include "util/version.h"

namespace softhat::corpus {

std::string format_split(const std::vector<Example>& examples, const std::string& split, io::WordFormat format) {
  std::string out;
  for (const Example& e : examples) {
    // Words are symbol codes inside, UTF-8 in every file (util/symbols.h).
    if (format == io::WordFormat::kTsv) {
      out += sym::encode(e.word);
      if (e.kind == "task") out += "\t" + sym::encode(e.target) + "\n";
      else out += e.label ? "\tTRUE\n" : "\tFALSE\n";
      continue;
    }
    nlohmann::ordered_json j;
    j["word"] = sym::encode(e.word);
    if (e.kind == "task") j["target"] = sym::encode(e.target);
    else j["label"] = e.label;
    j["length"] = e.word.size();
    j["split"] = split;
    j["kind"] = e.kind;
    if (!e.from.empty() || e.kind == "border") j["from"] = sym::encode(e.from);
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
  m["alphabet"] = sym::encode(info.alphabet);
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
  // Listed with the shortages in the manifest's format (kind "duplicate",
  // the count as "wanted"), after them, as before the types were split.
  for (const DroppedDuplicates& d : corpus.dropped) {
    m["shortages"].push_back({{"split", d.split}, {"length", 0}, {"kind", "duplicate"}, {"wanted", d.count}, {"got", 0}});
  }
  return m.dump(2) + "\n";
}

void write_corpus_dir(const Corpus& corpus, const std::string& dir, const ManifestInfo& info) {
  // Whole or not at all: every file is written into a fresh sibling folder
  // first (where a full disk or an interruption can only lose that folder),
  // then moved into place by renames on the same file system.
  namespace fs = std::filesystem;
  const fs::path target = fs::path(dir).lexically_normal();
  const fs::path name = target.filename().empty() ? target.parent_path().filename() : target.filename();
  fs::path parent = (target.filename().empty() ? target.parent_path() : target).parent_path();
  if (parent.empty()) parent = ".";
  std::error_code ec;
  fs::create_directories(parent, ec);
  if (ec) throw InputError(fmt::format("cannot create {}: {}", parent.string(), ec.message()));
  if (fs::exists(target, ec) && !fs::is_directory(target, ec)) {
    throw InputError(fmt::format("cannot write {}: it exists and is not a folder", dir));
  }
  std::string tmpl = (parent / ("." + name.string() + ".tmp.XXXXXX")).string();
  if (!::mkdtemp(tmpl.data())) throw InputError(fmt::format("cannot write {}: {}", dir, std::strerror(errno)));
  const fs::path staging(tmpl);
  std::vector<std::pair<std::string, std::string>> files;  // name, contents
  const GenerateOptions& o = *info.options;
  for (std::size_t s = 0; s < o.splits.size(); ++s) {
    files.emplace_back(o.splits[s].name + (info.format == io::WordFormat::kTsv ? ".tsv" : ".jsonl"),
                       format_split(corpus.splits[s], o.splits[s].name, info.format));
  }
  files.emplace_back("manifest.json", manifest_json(corpus, info));
  try {
    for (const auto& [file, contents] : files) io::write_file_atomically((staging / file).string(), contents);
    throw_if_interrupted();
    if (!fs::exists(target, ec)) {
      fs::rename(staging, target);  // the whole folder at once
      return;
    }
    for (const auto& entry : files) fs::rename(staging / entry.first, target / entry.first);
    fs::remove(staging);
  } catch (const fs::filesystem_error& e) {
    fs::remove_all(staging, ec);
    throw InputError(fmt::format("cannot write {}: {}", dir, e.code().message()));
  } catch (...) {
    fs::remove_all(staging, ec);
    throw;
  }
}

namespace {

nlohmann::ordered_json options_json(const GenerateOptions& o, io::WordFormat format) {
  nlohmann::ordered_json j;
  j["seed"] = o.seed;
  j["balance"] = o.balance;
  j["negatives"] = o.negatives == Negatives::kBorder ? "border" : "uniform";
  j["per_length"] = o.per_length;
  j["shuffle"] = o.shuffle;
  j["format"] = format == io::WordFormat::kTsv ? "tsv" : "jsonl";
  j["splits"] = nlohmann::ordered_json::array();
  for (const Split& sp : o.splits) j["splits"].push_back({{"name", sp.name}, {"lo", sp.lo}, {"hi", sp.hi}});
  return j;
}

}  // namespace

std::string corpus_shard_json(const std::vector<LengthUnit>& units, const ManifestInfo& info, const Shard& shard,
                              const std::string& sampler, const std::vector<std::string>& command_args) {
  nlohmann::ordered_json j;
  j["corpus_shard"] = shard.str();
  j["softhat_version"] = kVersion;
  j["language"] = info.language;
  j["alphabet"] = sym::encode(info.alphabet);
  j["formula"] = info.formula;
  j["command_args"] = command_args;
  j["sampler"] = sampler;
  j["options"] = options_json(*info.options, info.format);
  j["units"] = nlohmann::ordered_json::array();
  for (const LengthUnit& u : units) {
    nlohmann::ordered_json unit;
    unit["length"] = u.length;
    unit["splits"] = nlohmann::ordered_json::array();
    for (const std::vector<Example>& split : u.per_split) {
      nlohmann::ordered_json ex = nlohmann::ordered_json::array();
      for (const Example& e : split) {
        ex.push_back({sym::encode(e.word), e.label, e.kind, sym::encode(e.from), sym::encode(e.target)});
      }
      unit["splits"].push_back(std::move(ex));
    }
    unit["shortages"] = nlohmann::ordered_json::array();
    for (const Shortage& sh : u.shortages) {
      unit["shortages"].push_back({sh.split, sh.length, sh.kind, sh.wanted, sh.got});
    }
    j["units"].push_back(std::move(unit));
  }
  return j.dump() + "\n";
}

MergedCorpus merge_corpus_shards(const std::vector<nlohmann::json>& shards) {
  if (shards.empty()) throw InputError("merge: no corpus shards given");
  MergedCorpus m;
  const nlohmann::json& first = shards[0];
  std::vector<bool> seen;
  std::uint64_t count = 0;
  std::vector<LengthUnit> units;
  try {
    for (std::size_t s = 0; s < shards.size(); ++s) {
      const nlohmann::json& j = shards[s];
      for (const char* key : {"language", "alphabet", "formula", "command_args", "sampler", "options"}) {
        if (j.at(key) != first.at(key)) {
          throw InputError(fmt::format("merge: corpus shard {} comes from another run (its {} differs)", s + 1, key));
        }
      }
      const Shard sh = parse_shard(j.at("corpus_shard").get<std::string>());
      if (s == 0) sym::declare(j.at("alphabet").get<std::string>());  // its symbols get their codes in order
      if (s == 0) {
        count = sh.count;
        seen.assign(count, false);
      }
      if (sh.count != count) throw InputError(fmt::format("merge: corpus shard {} is {}, not one of {}", s + 1, sh.str(), count));
      if (seen[sh.index]) throw InputError(fmt::format("merge: corpus shard {} given twice", sh.str()));
      seen[sh.index] = true;
      for (const auto& uj : j.at("units")) {
        LengthUnit u;
        u.length = uj.at("length").get<std::size_t>();
        for (const auto& split : uj.at("splits")) {
          std::vector<Example> ex;
          for (const auto& e : split) {
            // UTF-8 -> codes (the shard's alphabet is declared above).
            ex.push_back({sym::declare(e.at(0).get<std::string>()), e.at(1).get<bool>(), e.at(2).get<std::string>(),
                          sym::declare(e.at(3).get<std::string>()), sym::declare(e.at(4).get<std::string>())});
          }
          u.per_split.push_back(std::move(ex));
        }
        for (const auto& sh2 : uj.at("shortages")) {
          u.shortages.push_back({sh2.at(0).get<std::string>(), sh2.at(1).get<std::size_t>(), sh2.at(2).get<std::string>(),
                                 sh2.at(3).get<std::size_t>(), sh2.at(4).get<std::size_t>()});
        }
        units.push_back(std::move(u));
      }
    }
    for (std::uint64_t k = 0; k < count; ++k) {
      if (!seen[k]) throw InputError(fmt::format("merge: corpus shard {}/{} is missing", k, count));
    }
    const nlohmann::json& o = first.at("options");
    m.options.seed = o.at("seed").get<std::uint64_t>();
    m.options.balance = o.at("balance").get<bool>();
    m.options.negatives = o.at("negatives") == "border" ? Negatives::kBorder : Negatives::kUniform;
    m.options.per_length = o.at("per_length").get<std::size_t>();
    m.options.shuffle = o.at("shuffle").get<bool>();
    for (const auto& sp : o.at("splits")) {
      m.options.splits.push_back({sp.at("name").get<std::string>(), sp.at("lo").get<std::size_t>(), sp.at("hi").get<std::size_t>()});
    }
    m.format = io::parse_word_format(o.at("format").get<std::string>());
    m.language = first.at("language").get<std::string>();
    m.alphabet = sym::declare(first.at("alphabet").get<std::string>());
    m.formula = first.at("formula").get<std::string>();
    m.command_args = first.at("command_args").get<std::vector<std::string>>();
    std::sort(units.begin(), units.end(), [](const LengthUnit& a, const LengthUnit& b) { return a.length < b.length; });
    m.corpus = assemble_corpus(units, m.options, first.at("sampler").get<std::string>());
  } catch (const nlohmann::json::exception& e) {
    throw InputError(fmt::format("merge: not a corpus shard: {}", e.what()));
  }
  return m;
}

}  // namespace softhat::corpus
