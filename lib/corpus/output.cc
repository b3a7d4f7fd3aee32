#include "corpus/output.h"

#include <fmt/format.h>

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>

#include "corpus/validate.h"
#include "io/file_util.h"
#include "io/hash.h"
#include "io/json_number.h"
#include "util/error.h"
#include "util/interrupt.h"
#include "util/symbols.h"
#include "util/version.h"
#include "words/words.h"

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
    // The one verdict vocabulary of every JSONL output (docs/corpus.md):
    // "accepted" for acceptors, "output" for transductions.
    if (e.kind == "task") j["output"] = sym::encode(e.target);
    else j["accepted"] = e.label;
    j["length"] = e.word.size();
    j["split"] = split;
    j["kind"] = e.kind;
    if (!e.from.empty() || e.kind == "border") j["from"] = sym::encode(e.from);
    out += io::json_line(j);
    out += '\n';
  }
  return out;
}

std::string split_file(const Split& split, io::WordFormat format) {
  if (!split.file.empty()) return split.file;
  return split.name + (format == io::WordFormat::kTsv ? ".tsv" : ".jsonl");
}

namespace {

std::string split_kind(const Corpus& corpus, const GenerateOptions& o, std::size_t s) {
  const bool task = !corpus.splits[s].empty() && corpus.splits[s][0].kind == "task";
  if (task) return "task";
  if (!o.balance) return "natural";
  return negatives_of(o, o.splits[s]) == Negatives::kBorder ? "border" : "uniform";
}

}  // namespace

std::string manifest_json(const Corpus& corpus, const ManifestInfo& info, const std::vector<std::string>& files) {
  const GenerateOptions& o = *info.options;
  nlohmann::ordered_json m;
  m["softhat_corpus"] = 2;
  m["softhat_version"] = kVersion;
  m["language"] = info.language;
  m["alphabet"] = sym::encode(info.alphabet);
  m["formula"] = info.formula;
  m["source"] = info.source;
  m["command"] = info.command;
  m["seed"] = o.seed;
  m["sampler"] = corpus.sampler;
  m["balance"] = o.balance;
  m["negatives"] = o.negatives == Negatives::kBorder ? "border" : "uniform";
  m["per_length"] = o.per_length;
  m["allow_shortage"] = info.allow_shortage;
  m["excluded_words"] = o.exclude.size();
  m["format"] = info.format == io::WordFormat::kTsv ? "tsv" : "jsonl";
  m["splits"] = nlohmann::ordered_json::array();
  for (std::size_t s = 0; s < o.splits.size(); ++s) {
    const Split& sp = o.splits[s];
    const std::string file = split_file(sp, info.format);
    // Counts from the bytes as written, read back as validate reads them.
    const std::vector<CorpusLine> lines = read_split_lines(files[s], info.format, file);
    const std::string kind = split_kind(corpus, o, s);
    nlohmann::ordered_json split;
    split["name"] = sp.name;
    split["file"] = file;
    split["lengths"] = format_lengths(sp.lengths);
    split["negatives"] = kind;
    split["words"] = lines.size();
    split["sha256"] = io::sha256_hex(files[s]);
    split["wanted_per_length"] = nlohmann::ordered_json::object();
    for (std::size_t n : sp.lengths) split["wanted_per_length"][std::to_string(n)] = words_at(o, sp, n);
    split["counts"] = nlohmann::ordered_json::object();
    for (const auto& [len, c] : count_by_length(lines)) {
      if (kind == "task") split["counts"][std::to_string(len)] = {{"words", c.first}};
      else split["counts"][std::to_string(len)] = {{"positive", c.first}, {"negative", c.second}};
    }
    m["splits"].push_back(split);
  }
  m["shortages"] = nlohmann::ordered_json::array();
  for (const Shortage& s : corpus.shortages) {
    m["shortages"].push_back({{"split", s.split}, {"length", s.length}, {"kind", s.kind}, {"wanted", s.wanted},
                              {"got", s.got}, {"exists", s.exists}});
  }
  return m.dump(2) + "\n";
}

namespace {
namespace fs = std::filesystem;

mode_t umask_now() {
  const mode_t mask = ::umask(0);
  ::umask(mask);
  return mask;
}

// A softhat corpus folder: its manifest.json says so.
bool is_corpus(const fs::path& dir) {
  try {
    const nlohmann::json m = nlohmann::json::parse(io::read_file((dir / "manifest.json").string()));
    return m.contains("softhat_version") && m.contains("splits");
  } catch (const std::exception&) {
    return false;
  }
}

fs::path parent_of(const fs::path& target) {
  fs::path parent = target.parent_path();
  return parent.empty() ? fs::path(".") : parent;
}

}  // namespace

void check_corpus_target(const std::string& dir, bool force) {
  const fs::path target = fs::path(dir).lexically_normal();
  std::error_code ec;
  if (fs::exists(target, ec)) {
    if (!fs::is_directory(target, ec)) throw InputError(fmt::format("cannot write {}: it exists and is not a folder", dir));
    if (!fs::is_empty(target, ec) && !is_corpus(target) && !force) {
      throw InputError(fmt::format("{} is a folder with files that is not a softhat corpus (no manifest.json of "
                                   "one); its files would be replaced: give --force to do it",
                                   dir));
    }
  }
  // The nearest existing ancestor must let us create the corpus beside it.
  fs::path probe = parent_of(target.filename().empty() ? target.parent_path() : target);
  while (!fs::exists(probe, ec) && probe.has_parent_path() && probe != probe.parent_path()) probe = probe.parent_path();
  if (!fs::is_directory(probe, ec) || ::access(probe.c_str(), W_OK | X_OK) != 0) {
    throw InputError(fmt::format("cannot write {}: {} is not a writable folder", dir, probe.string()));
  }
}

void write_corpus_dir(const Corpus& corpus, const std::string& dir, const ManifestInfo& info) {
  // Whole or not at all: every file is written into a fresh sibling folder
  // first (where a full disk or an interruption can only lose that folder),
  // which then takes the target's place; an earlier corpus there is moved
  // aside first and removed after, so no stale file survives.
  fs::path target = fs::path(dir).lexically_normal();
  if (target.filename().empty()) target = target.parent_path();
  // A link to a folder is written through: the corpus replaces the folder
  // it names, and the link stays (as io::write_file_atomically does for files).
  target = io::write_target(target.string());
  std::error_code ec;
  const fs::path parent = parent_of(target);
  fs::create_directories(parent, ec);
  if (ec) throw InputError(fmt::format("cannot create {}: {}", parent.string(), ec.message()));
  if (fs::exists(target, ec) && !fs::is_directory(target, ec)) {
    throw InputError(fmt::format("cannot write {}: it exists and is not a folder", dir));
  }
  const std::string stem = "." + target.filename().string();
  std::string tmpl = (parent / (stem + ".tmp.XXXXXX")).string();
  if (!::mkdtemp(tmpl.data())) throw InputError(fmt::format("cannot write {}: {}", dir, std::strerror(errno)));
  const fs::path staging(tmpl);
  fs::path old;
  const GenerateOptions& o = *info.options;
  try {
    // mkdtemp makes the folder 0700: give it the modes mkdir would (0777 minus the umask).
    fs::permissions(staging, static_cast<fs::perms>(0777 & ~umask_now()), fs::perm_options::replace);
    // Errors name the file in DIR, not the staging folder's random name.
    auto write = [&](const std::string& file, const std::string& bytes) {
      const std::string staged = (staging / file).string();
      try {
        io::write_file_atomically(staged, bytes);
      } catch (const InputError& e) {
        const std::string what = e.what(), prefix = "cannot write " + staged + ": ";
        throw InputError(fmt::format("cannot write {}: {}", (target / file).string(),
                                     what.rfind(prefix, 0) == 0 ? what.substr(prefix.size()) : what));
      }
    };
    std::vector<std::string> contents;
    for (std::size_t s = 0; s < o.splits.size(); ++s) {
      contents.push_back(format_split(corpus.splits[s], o.splits[s].name, info.format));
      write(split_file(o.splits[s], info.format), contents.back());
    }
    write("manifest.json", manifest_json(corpus, info, contents));
    throw_if_interrupted();
    if (fs::exists(target, ec)) {
      std::string aside = (parent / (stem + ".old.XXXXXX")).string();
      if (!::mkdtemp(aside.data())) throw InputError(fmt::format("cannot write {}: {}", dir, std::strerror(errno)));
      old = fs::path(aside) / "corpus";
      fs::rename(target, old);
    }
    fs::rename(staging, target);
    if (!old.empty()) fs::remove_all(old.parent_path(), ec);
  } catch (const fs::filesystem_error& e) {
    if (!old.empty() && !fs::exists(target, ec)) fs::rename(old, target, ec);  // put the earlier corpus back
    if (!old.empty()) fs::remove_all(old.parent_path(), ec);
    fs::remove_all(staging, ec);
    throw InputError(fmt::format("cannot write {}: {}", dir, e.code().message()));
  } catch (...) {
    if (!old.empty() && !fs::exists(target, ec)) fs::rename(old, target, ec);
    if (!old.empty()) fs::remove_all(old.parent_path(), ec);
    fs::remove_all(staging, ec);
    throw;
  }
}

namespace {

// The excluded words enter a shard's options as a hash (the words themselves
// need not travel: every shard was given the same list).
std::string exclusion_hash(std::vector<std::string> words) {
  std::sort(words.begin(), words.end());
  std::string all;
  for (const std::string& w : words) all += sym::encode(w) + "\n";
  return io::sha256_hex(all);
}

nlohmann::ordered_json options_json(const GenerateOptions& o, io::WordFormat format) {
  nlohmann::ordered_json j;
  j["seed"] = o.seed;
  j["balance"] = o.balance;
  j["negatives"] = o.negatives == Negatives::kBorder ? "border" : "uniform";
  j["per_length"] = o.per_length;
  j["shuffle"] = o.shuffle;
  j["format"] = format == io::WordFormat::kTsv ? "tsv" : "jsonl";
  j["exclude_sha256"] = exclusion_hash(o.exclude);
  j["splits"] = nlohmann::ordered_json::array();
  for (const Split& sp : o.splits) {
    nlohmann::ordered_json split{{"name", sp.name}, {"lengths", format_lengths(sp.lengths)}, {"file", sp.file}};
    split["count"] = sp.count ? nlohmann::ordered_json(*sp.count) : nlohmann::ordered_json();
    split["negatives"] = !sp.negatives ? "" : *sp.negatives == Negatives::kBorder ? "border" : "uniform";
    j["splits"].push_back(std::move(split));
  }
  return j;
}

}  // namespace

namespace {
// The keys that identify a generate run; its shards must agree on all of
// them (corpus_run_id hashes them, with the shard count).
constexpr const char* kCorpusRunKeys[] = {"softhat_version", "language", "alphabet", "formula", "source",
                                          "allow_shortage", "command_args", "sampler", "options"};

}  // namespace

std::string corpus_run_id(const nlohmann::json& shard) {
  const nlohmann::json label = shard.value("corpus_shard", nlohmann::json());
  const std::string text = label.is_string() ? label.get<std::string>() : label.dump();
  const std::string count = text.substr(text.find('/') + 1);  // the shard count (a label without '/': all of it)
  return io::sha256_hex(io::json_keys_id(shard, kCorpusRunKeys) + " " + count);
}

namespace {

// One part of a corpus merge: whole and unedited (its checksum), and of the
// same run as the first (its run_id, recomputed, and each run key).
void check_corpus_part(const nlohmann::json& j, const nlohmann::json& first, const std::string& name,
                       const std::string& first_name) {
  if (!j.contains("checksum") || !j.at("checksum").is_string()) {
    throw InputError(fmt::format("merge: {}: no checksum (not a shard of `softhat generate --shard`)", name));
  }
  if (j.at("checksum") != io::json_checksum(j, {"checksum"})) {
    throw InputError(
        fmt::format("merge: {}: the checksum does not match the content (the file was edited or damaged)", name));
  }
  if (j.value("run_id", std::string()) != corpus_run_id(j)) {
    throw InputError(fmt::format("merge: {}: run_id does not match the run's parameters", name));
  }
  for (const char* key : kCorpusRunKeys) {
    if (j.value(key, nlohmann::json()) != first.value(key, nlohmann::json())) {
      throw InputError(fmt::format("merge: {} comes from another run than {}: its {} differs", name, first_name, key));
    }
  }
}

// Every length of the splits has exactly one unit, in the shard whose range
// holds it (generate_units' split), and each unit has one list per split.
void check_units(const std::vector<LengthUnit>& units, const std::vector<std::pair<std::size_t, Shard>>& unit_shard,
                 const std::map<std::uint64_t, std::size_t>& file_of_shard, const GenerateOptions& options,
                 const std::function<std::string(std::size_t)>& name) {
  std::vector<std::size_t> lengths;
  for (const Split& split : options.splits) lengths.insert(lengths.end(), split.lengths.begin(), split.lengths.end());
  std::sort(lengths.begin(), lengths.end());
  lengths.erase(std::unique(lengths.begin(), lengths.end()), lengths.end());
  std::vector<bool> have(lengths.size(), false);
  for (std::size_t u = 0; u < units.size(); ++u) {
    const auto& [file, shard] = unit_shard[u];
    const auto it = std::lower_bound(lengths.begin(), lengths.end(), units[u].length);
    const std::size_t k = static_cast<std::size_t>(it - lengths.begin());
    const auto [lo, hi] = shard_range(lengths.size(), shard);
    if (it == lengths.end() || *it != units[u].length || k < lo || k >= hi) {
      throw InputError(fmt::format("merge: {}: corpus shard {} has length {}, which is not one of its lengths",
                                   name(file), shard.str(), units[u].length));
    }
    if (have[k]) throw InputError(fmt::format("merge: {}: length {} given twice", name(file), units[u].length));
    have[k] = true;
    if (units[u].per_split.size() != options.splits.size()) {
      throw InputError(fmt::format("merge: {}: length {} has {} splits, not {}", name(file), units[u].length,
                                   units[u].per_split.size(), options.splits.size()));
    }
  }
  for (std::size_t k = 0; k < lengths.size(); ++k) {
    if (have[k]) continue;
    const std::uint64_t count = file_of_shard.size();
    std::uint64_t i = 0;
    while (i + 1 < count && shard_range(lengths.size(), {i, count}).second <= k) ++i;
    throw InputError(fmt::format("merge: {}: corpus shard {}/{} lacks the words of length {}", name(file_of_shard.at(i)), i,
                                 count, lengths[k]));
  }
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
  j["source"] = info.source;
  j["allow_shortage"] = info.allow_shortage;
  j["command_args"] = command_args;
  j["sampler"] = sampler;
  j["options"] = options_json(*info.options, info.format);
  j["run_id"] = corpus_run_id(nlohmann::json(j));
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
      unit["shortages"].push_back({sh.split, sh.length, sh.kind, sh.wanted, sh.got, sh.exists});
    }
    j["units"].push_back(std::move(unit));
  }
  j["checksum"] = io::json_checksum(nlohmann::json(j), {"checksum"});
  return j.dump() + "\n";
}

MergedCorpus merge_corpus_shards(const std::vector<nlohmann::json>& shards, const std::vector<std::string>& names) {
  if (shards.empty()) throw InputError("merge: no corpus shards given");
  auto name = [&](std::size_t s) { return s < names.size() ? names[s] : fmt::format("corpus shard {}", s + 1); };
  MergedCorpus m;
  const nlohmann::json& first = shards[0];
  std::uint64_t count = 0;
  std::vector<LengthUnit> units;
  std::vector<std::pair<std::size_t, Shard>> unit_shard;  // per unit: the file it came from, and its shard
  std::map<std::uint64_t, std::size_t> file_of_shard;     // per shard index given: its file (a map: N is the file's word)
  try {
    for (std::size_t s = 0; s < shards.size(); ++s) {
      const nlohmann::json& j = shards[s];
      check_corpus_part(j, first, name(s), name(0));
      const Shard sh = parse_shard(j.at("corpus_shard").get<std::string>());
      if (s == 0) sym::declare(j.at("alphabet").get<std::string>());  // its symbols get their codes in order
      if (s == 0) count = sh.count;
      if (sh.count != count) throw InputError(fmt::format("merge: {} is corpus shard {}, not one of {}", name(s), sh.str(), count));
      if (!file_of_shard.emplace(sh.index, s).second) {
        throw InputError(fmt::format("merge: {}: corpus shard {} given twice", name(s), sh.str()));
      }
      // A count that is not one, named with its file.
      auto count_of = [&](const nlohmann::json& v, const char* what) {
        if (v.is_number_unsigned() || (v.is_number_integer() && v.get<std::int64_t>() >= 0)) return io::json_unsigned(v, what);
        throw InputError(fmt::format("merge: {}: {} must be a non-negative integer, found {}", name(s), what, v.dump()));
      };
      for (const auto& uj : j.at("units")) {
        LengthUnit u;
        u.length = count_of(uj.at("length"), "a unit's length");
        for (const auto& split : uj.at("splits")) {
          std::vector<Example> ex;
          for (const auto& e : split) {
            // UTF-8 -> codes (the shard's alphabet is declared above).
            ex.push_back({sym::declare(e.at(0).get<std::string>()), e.at(1).get<bool>(), e.at(2).get<std::string>(),
                          sym::declare(e.at(3).get<std::string>()), sym::declare(e.at(4).get<std::string>())});
          }
          u.per_split.push_back(std::move(ex));
        }
        if (!uj.at("shortages").empty() && !j.at("allow_shortage").get<bool>()) {
          throw InputError(fmt::format("merge: {}: records a shortage at length {}, but its run refuses shortages "
                                       "(no --allow-shortage)", name(s), u.length));
        }
        for (const auto& sh2 : uj.at("shortages")) {
          u.shortages.push_back({sh2.at(0).get<std::string>(), count_of(sh2.at(1), "a shortage's length"),
                                 sh2.at(2).get<std::string>(), count_of(sh2.at(3), "a shortage's wanted count"),
                                 count_of(sh2.at(4), "a shortage's count"), sh2.at(5).get<std::string>()});
        }
        units.push_back(std::move(u));
        unit_shard.emplace_back(s, sh);
      }
    }
    for (std::uint64_t k = 0; k < count; ++k) {  // the first missing one is at most the number of files
      if (!file_of_shard.count(k)) throw InputError(fmt::format("merge: corpus shard {}/{} is missing", k, count));
    }
    const nlohmann::json& o = first.at("options");
    m.options.seed = io::json_unsigned(o.at("seed"), "seed");
    m.options.balance = o.at("balance").get<bool>();
    m.options.negatives = o.at("negatives") == "border" ? Negatives::kBorder : Negatives::kUniform;
    m.options.per_length = io::json_unsigned(o.at("per_length"), "per_length");
    m.options.shuffle = o.at("shuffle").get<bool>();
    for (const auto& sp : o.at("splits")) {
      Split split;
      split.name = sp.at("name").get<std::string>();
      split.lengths = words::parse_length_list(sp.at("lengths").get<std::string>(), 1'000'000);
      std::sort(split.lengths.begin(), split.lengths.end());
      split.file = sp.at("file").get<std::string>();
      if (!sp.at("count").is_null()) split.count = io::json_unsigned(sp.at("count"), "count");
      if (sp.at("negatives") != "") split.negatives = sp.at("negatives") == "border" ? Negatives::kBorder : Negatives::kUniform;
      m.options.splits.push_back(std::move(split));
    }
    m.format = io::parse_word_format(o.at("format").get<std::string>());
    m.language = first.at("language").get<std::string>();
    m.alphabet = sym::declare(first.at("alphabet").get<std::string>());
    m.formula = first.at("formula").get<std::string>();
    m.source = first.at("source");
    m.allow_shortage = first.at("allow_shortage").get<bool>();
    m.command_args = first.at("command_args").get<std::vector<std::string>>();
    check_units(units, unit_shard, file_of_shard, m.options, name);
    std::sort(units.begin(), units.end(), [](const LengthUnit& a, const LengthUnit& b) { return a.length < b.length; });
    m.corpus = assemble_corpus(units, m.options, first.at("sampler").get<std::string>());
  } catch (const nlohmann::json::exception& e) {
    throw InputError(fmt::format("merge: not a corpus shard (a key is missing or of the wrong type): {}", e.what()));
  }
  return m;
}

}  // namespace softhat::corpus
