#include "verify/verify.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>
#include <set>
#include <cstdio>
#include <limits>

#include "cascade/holonomy.h"
#include "compile/acceptor.h"
#include "io/hash.h"
#include "io/json_number.h"
#include "model/prefix_runner.h"
#include "task/khop.h"
#include "util/error.h"
#include "util/interrupt.h"
#include "util/memory.h"
#include "util/parallel.h"
#include "util/random.h"
#include "util/symbols.h"
#include "verify/sample_words.h"
#include "words/source.h"
#include "words/words.h"

namespace softhat::verify {

namespace {

// What testing a range of a row's words found (merged in index order, so the
// result does not depend on how the range was split).
struct Partial {
  VerifyRow row;
  std::uint64_t disagreements = 0;
  std::optional<Disagreement> shortest;  // the first shortest disagreement in index order
  std::uint64_t shortest_index = 0;
  void merge(const Partial& o) {
    row.words += o.row.words;
    row.agreed += o.row.agreed;
    row.positives += o.row.positives;
    row.positions += o.row.positions;
    row.positions_agreed += o.row.positions_agreed;
    row.min_target_mass = std::min(row.min_target_mass, o.row.min_target_mass);
    row.min_scaled_gap = std::min(row.min_scaled_gap, o.row.min_scaled_gap);
    row.min_output_margin = std::min(row.min_output_margin, o.row.min_output_margin);
    disagreements += o.disagreements;
    if (o.shortest && comes_first(o.shortest->word, 0, o.shortest_index, shortest, 0, shortest_index)) {
      shortest = o.shortest;
      shortest_index = o.shortest_index;
    }
  }
};

// The acceptor of the language, or nullopt with report.skipped saying why
// there is none (no definition to build from, or a DFA that is not star-free:
// the witness says why no transformer of this kind recognizes it).
std::optional<compile::Acceptor> build_or_skip(const lang::Language& language, const VerifyOptions& options,
                                               VerifyReport& report) {
  if (!compile::has_acceptor(language)) {
    report.skipped = "no formula or construction to build a transformer from";
    return std::nullopt;
  }
  try {
    return compile::build_acceptor(language, options.compile);
  } catch (const cascade::NotStarFree& e) {
    const std::string prefix = fmt::format("language '{}': ", language.name());
    const std::string what = e.what();
    report.skipped = what.rfind(prefix, 0) == 0 ? what.substr(prefix.size()) : what;
    return std::nullopt;
  }
}

// verify --model: the given model, if it can read the language's words and
// gives the kind of verdict the language asks for.
model::Transformer given_model(const lang::Language& language, const VerifyOptions& options) {
  const model::ModelConfig& c = options.model->config;
  for (char symbol : language.alphabet()) {
    if (c.alphabet.find(symbol) == std::string::npos) {
      throw InputError(fmt::format("model {} reads the alphabet {}, which lacks the symbol '{}' of language '{}' "
                                   "(alphabet {})",
                                   options.model_name, sym::alphabet_set(c.alphabet), sym::encode(std::string(1, symbol)),
                                   language.name(), sym::alphabet_set(language.alphabet())));
    }
  }
  if (c.transducer.has_value() != language.is_task()) {
    throw InputError(fmt::format("model {} is {}, but '{}' is {}", options.model_name,
                                 c.transducer ? "a transducer" : "an acceptor", language.name(),
                                 language.is_task() ? "a transduction task" : "a language"));
  }
  return *options.model;
}

// Comparing one word's transformer result with every oracle's verdict
// (tasks: the oracle's output, position by position), into a Partial.
class Comparison {
 public:
  Comparison(const lang::Language& language, const std::vector<VerdictSource>& oracles, bool task)
      : language_(language), oracles_(oracles), task_(task) {}

  void test(const std::string& word, std::uint64_t index, Partial& p, const model::RunResult& r) const {
    VerifyRow& row = p.row;
    ++row.words;
    if (r.margins) {
      row.min_target_mass = std::min(row.min_target_mass, r.margins->min_target_mass);
      row.min_scaled_gap = std::min(row.min_scaled_gap, r.margins->min_scaled_gap);
    }
    std::optional<Disagreement> d = task_ ? compare_task(word, row, r) : compare_verdicts(word, row, r);
    if (!d) {
      ++row.agreed;
      return;
    }
    ++p.disagreements;
    if (comes_first(word, 0, index, p.shortest, 0, p.shortest_index)) {
      p.shortest = std::move(d);
      p.shortest_index = index;
    }
  }

 private:
  std::optional<Disagreement> compare_task(const std::string& word, VerifyRow& row, const model::RunResult& r) const {
    const std::string expected = language_.transduce(word);
    row.min_output_margin = std::min(row.min_output_margin, r.min_symbol_margin);
    row.positions += word.size();
    for (std::size_t i = 0; i < word.size(); ++i) row.positions_agreed += (*r.output)[i] == expected[i];
    if (*r.output != expected) return Disagreement{word, {}, {*r.output, expected}};
    return std::nullopt;
  }

  std::optional<Disagreement> compare_verdicts(const std::string& word, VerifyRow& row,
                                               const model::RunResult& r) const {
    std::vector<bool> verdicts{r.accepted};
    const bool agree = append_verdicts(word, oracles_, verdicts);
    row.positives += r.accepted;
    row.min_output_margin = std::min(row.min_output_margin, r.output_margin);
    if (!agree) return Disagreement{word, verdicts, {}};
    return std::nullopt;
  }

  const lang::Language& language_;
  const std::vector<VerdictSource>& oracles_;
  bool task_;
};

// The rows verify tests: every word up to max_len, then for each length the
// sampled words (balanced near-misses; tasks: the task generator's words).
std::vector<words::WordSource> verify_rows(const lang::Language& language, const VerifyOptions& options,
                                           const VerifyReport& report) {
  if (!report.task) {
    return language_rows(language, report.max_len, options.lengths, options.samples, options.seed, options.max_memory);
  }
  std::vector<words::WordSource> rows{words::WordSource::exhaustive(language.alphabet(), report.max_len)};
  for (std::size_t n : options.lengths) {
    std::vector<std::string> sample;
    std::mt19937_64 rng = derived_rng(options.seed, "task-words:" + sym::encode(language.alphabet()), n);
    for (std::size_t i = 0; i < options.samples; ++i) {
      // Mostly the task generator's words (no equal neighbours), every fourth uniform.
      sample.push_back(i % 4 == 3 ? words::random_word(rng, language.alphabet(), n, 0)
                                  : task::khop_word(rng, language.alphabet(), n));
    }
    rows.push_back(words::WordSource::list(fmt::format("{}", n), std::move(sample)));
  }
  return rows;
}

// One row, this shard's part of it, split over threads. The exhaustive row
// (prefix_sharing) goes through a prefix-sharing runner per thread when the
// model is causal: consecutive words share all but a few positions.
Partial run_row(const words::WordSource& rw, bool prefix_sharing, const model::Engine& engine,
                const model::RunOptions& run, const Comparison& comparison, const VerifyOptions& options) {
  const auto [lo, hi] = shard_range(rw.count, options.shard);
  const int threads = static_cast<int>(std::clamp<std::uint64_t>(hi - lo, 1, std::max(1, options.threads)));
  std::vector<Partial> parts(static_cast<std::size_t>(threads));
  parallel_blocks(lo, hi, threads, [&](int t, std::uint64_t a, std::uint64_t b) {
    Partial& part = parts[static_cast<std::size_t>(t)];
    std::optional<model::PrefixRunner> runner;
    model::Runner full(engine);  // this thread's buffers, for words run whole
    for (std::uint64_t i = a; i < b && !interrupted(); ++i) {
      const std::string word = rw.at(i);
      if (prefix_sharing) {
        if (!runner || runner->length() != word.size()) runner.emplace(engine.model(), word.size(), options.beta);
        comparison.test(word, i, part, runner->run(word));
      } else {
        comparison.test(word, i, part, full.run(word, run));
      }
      if (options.progress) options.progress->advance();
    }
  });
  throw_if_interrupted();
  Partial total;
  total.row.label = rw.label;
  for (const Partial& p : parts) total.merge(p);
  return total;
}

}  // namespace

VerifyReport verify_language(const lang::Language& language, const VerifyOptions& options) {
  VerifyReport report;
  report.language = language.name();
  std::optional<model::Transformer> tested;
  if (options.model) {
    tested = given_model(language, options);
  } else if (std::optional<compile::Acceptor> acceptor = build_or_skip(language, options, report)) {
    tested = std::move(acceptor->model);
  } else {
    return report;
  }
  const model::ModelConfig& cfg = tested->config;
  report.layers = static_cast<int>(cfg.layers.size());
  for (const model::LayerConfig& l : cfg.layers) report.heads += static_cast<int>(l.heads.size());
  report.width = cfg.d_model;
  report.beta = (options.beta ? *options.beta : cfg.beta).describe();
  const model::Engine engine(std::move(*tested), options.precision);
  model::RunOptions run;
  run.mode = options.mode;
  run.beta = options.beta;
  run.trace = options.mode == model::AttentionMode::kSoftmax;
  run.max_memory = options.max_memory;
  report.task = language.is_task();
  report.max_len = options.max_len.value_or(words::default_max_len(language.alphabet().size()));
  // Before any word is drawn: the sampled words, held whole, and one engine
  // workspace per thread for the longest word.
  std::size_t longest = report.max_len;
  for (std::size_t n : options.lengths) longest = std::max(longest, n);
  const std::size_t workspaces = util::saturating_product(
      {model::word_memory_bytes(engine.model(), longest, run), static_cast<std::size_t>(std::max(1, options.threads))});
  util::check_memory(util::saturating_sum({sampled_words_bytes(options.lengths, options.samples), workspaces}),
                     options.max_memory,
                     fmt::format("verifying {} ({} words per length, up to {} symbols, {} threads)", language.name(),
                                 options.samples, longest, std::max(1, options.threads)));

  const std::vector<VerdictSource> oracles = report.task ? std::vector<VerdictSource>{} : verdict_sources(language);
  report.sources.push_back("transformer");
  if (report.task) report.sources.push_back("oracle");
  for (const VerdictSource& s : oracles) report.sources.push_back(s.name);
  const Comparison comparison(language, oracles, report.task);

  const bool prefix_sharing = !report.task && options.mode == model::AttentionMode::kSoftmax &&
                              options.precision == model::Precision::kDouble &&
                              model::PrefixRunner::applies(engine.model());
  const std::vector<words::WordSource> rows = verify_rows(language, options, report);
  if (options.progress) {
    options.progress->set_label("verify " + language.name());
    for (const words::WordSource& row : rows) {
      const auto [lo, hi] = shard_range(row.count, options.shard);
      options.progress->add_total(hi - lo);
    }
  }
  for (std::size_t ri = 0; ri < rows.size(); ++ri) {
    const Partial total = run_row(rows[ri], ri == 0 && prefix_sharing, engine, run, comparison, options);
    report.words += total.row.words;
    report.disagreements += total.disagreements;
    // Rows are in order: an earlier row's equally short disagreement stays.
    if (total.shortest && comes_first(total.shortest->word, static_cast<int>(ri), total.shortest_index,
                                      report.shortest, report.shortest_row, report.shortest_index)) {
      report.shortest = total.shortest;
      report.shortest_row = static_cast<int>(ri);
      report.shortest_index = total.shortest_index;
    }
    report.rows.push_back(total.row);
  }
  return report;
}

namespace {
std::string number(double v, const char* fmt_spec = "{:.4g}") {
  if (std::isinf(v)) return "-";
  return fmt::format(fmt::runtime(fmt_spec), v);
}
double json_number(double v) { return v; }  // inf becomes null in nlohmann's dump
}  // namespace

std::string format_verify_reports(const std::vector<VerifyReport>& reports) {
  std::string out = fmt::format("{:<20} {:>6} {:>13} {:>12} {:>7} {:>9} {:>10} {:>10} {:>10}\n", "language", "size",
                                "beta(n)", "lengths", "words", "agree", "min mass", "min gap*b", "min out");
  std::uint64_t words = 0, disagreements = 0;
  std::size_t failing = 0, verified = 0;
  for (const VerifyReport& r : reports) {
    if (!r.skipped.empty()) continue;
    ++verified;
    bool first = true;
    for (const VerifyRow& row : r.rows) {
      double rate = row.words ? 100.0 * static_cast<double>(row.agreed) / static_cast<double>(row.words) : 100.0;
      if (r.task && row.positions) {
        rate = 100.0 * static_cast<double>(row.positions_agreed) / static_cast<double>(row.positions);
      }
      out += fmt::format("{:<20} {:>6} {:>13} {:>12} {:>7} {:>8.2f}% {:>10} {:>10} {:>10}\n",
                         first ? r.language : "", first ? fmt::format("{}L{}H", r.layers, r.heads) : "",
                         first ? r.beta : "", row.label, row.words, rate, number(row.min_target_mass),
                         number(row.min_scaled_gap), number(row.min_output_margin));
      first = false;
    }
    words += r.words;
    disagreements += r.disagreements;
    failing += !r.ok();
  }
  for (const VerifyReport& r : reports) {
    if (!r.skipped.empty()) out += fmt::format("skipped {}: {}\n", r.language, r.skipped);
  }
  for (const VerifyReport& r : reports) {
    if (r.ok() || !r.task) continue;
    out += fmt::format("DISAGREE {}: {} of {} words; shortest \"{}\" (transformer={}, oracle={})\n", r.language,
                       r.disagreements, r.words, sym::encode(r.shortest->word), sym::encode(r.shortest->outputs[0]),
                       sym::encode(r.shortest->outputs[1]));
  }
  for (const VerifyReport& r : reports) {
    if (r.ok() || r.task) continue;
    std::vector<std::string> v;
    for (std::size_t i = 0; i < r.sources.size(); ++i) {
      v.push_back(fmt::format("{}={}", r.sources[i], r.shortest->verdicts[i] ? "TRUE" : "FALSE"));
    }
    out += fmt::format("DISAGREE {}: {} of {} words; shortest \"{}\" ({})\n", r.language, r.disagreements, r.words,
                       sym::encode(r.shortest->word), fmt::join(v, ", "));
  }
  out += fmt::format("{} languages verified, {} skipped, {} words, {} disagreements, {} languages disagree\n",
                     verified, reports.size() - verified, words, disagreements, failing);
  return out;
}

namespace {
// The keys that identify a run; run_id hashes them.
constexpr const char* kRunKeys[] = {"seed", "pe", "mode", "precision", "model", "run"};
}  // namespace

std::string run_id(const nlohmann::json& report) { return io::json_keys_id(report, kRunKeys); }

std::string content_checksum(const nlohmann::json& report) {
  return io::json_checksum(report, {"checksum", "command"});  // "command": added by the CLI around the report
}

nlohmann::ordered_json verify_reports_json(const std::vector<VerifyReport>& reports, const VerifyOptions& options) {
  nlohmann::ordered_json j;
  j["seed"] = options.seed;
  j["pe"] = compile::pe_name(options.compile.pe);
  j["mode"] = options.mode == model::AttentionMode::kSoftmax ? "softmax" : "hard";
  j["precision"] = options.precision == model::Precision::kDouble ? "double" : "float";
  if (!options.model_name.empty()) j["model"] = options.model_name;
  if (options.shard.count > 1) j["shard"] = fmt::format("{}/{}", options.shard.index, options.shard.count);
  // What defines the run (its shards must agree on all of it), and its hash.
  nlohmann::ordered_json run;
  run["max_len"] = options.max_len ? nlohmann::ordered_json(*options.max_len) : nlohmann::ordered_json();
  run["lengths"] = options.lengths;
  run["samples"] = options.samples;
  run["beta"] = options.beta ? nlohmann::ordered_json(options.beta->describe()) : nlohmann::ordered_json();
  run["c"] = options.compile.c;
  run["languages"] = nlohmann::ordered_json::array();
  for (const VerifyReport& r : reports) run["languages"].push_back(r.language);
  j["run"] = run;
  j["run_id"] = run_id(nlohmann::json(j));
  j["languages"] = nlohmann::ordered_json::array();
  for (const VerifyReport& r : reports) {
    nlohmann::ordered_json l;
    l["language"] = r.language;
    if (!r.skipped.empty()) {
      l["skipped"] = r.skipped;
      j["languages"].push_back(l);
      continue;
    }
    l["sources"] = r.sources;
    l["layers"] = r.layers;
    l["heads"] = r.heads;
    l["width"] = r.width;
    l["beta"] = r.beta;
    l["task"] = r.task;
    l["max_len"] = r.max_len;
    l["words"] = r.words;
    l["disagreements"] = r.disagreements;
    l["rows"] = nlohmann::ordered_json::array();
    for (const VerifyRow& row : r.rows) {
      l["rows"].push_back({{"lengths", row.label},
                           {"words", row.words},
                           {"agreed", row.agreed},
                           {"accepted", row.positives},
                           {"min_target_mass", json_number(row.min_target_mass)},
                           {"min_scaled_gap", json_number(row.min_scaled_gap)},
                           {"min_output_margin", json_number(row.min_output_margin)}});
      if (r.task) {
        l["rows"].back()["positions"] = row.positions;
        l["rows"].back()["positions_agreed"] = row.positions_agreed;
      }
    }
    if (r.shortest) {
      l["shortest_disagreement"] = {
          {"word", sym::encode(r.shortest->word)}, {"row", r.shortest_row}, {"index", r.shortest_index}};
      if (r.task) {
        std::vector<std::string> outputs;
        for (const std::string& o : r.shortest->outputs) outputs.push_back(sym::encode(o));
        l["shortest_disagreement"]["outputs"] = outputs;
      }
      else l["shortest_disagreement"]["verdicts"] = r.shortest->verdicts;
    }
    j["languages"].push_back(l);
  }
  j["checksum"] = content_checksum(nlohmann::json(j));
  return j;
}

namespace {
double json_double(const nlohmann::json& v) {
  return v.is_null() ? std::numeric_limits<double>::infinity() : v.get<double>();
}
}  // namespace

namespace {
// One part of a merge: whole and unedited, and of the same run as the first.
void check_part(const nlohmann::json& j, const nlohmann::json& first, const std::string& name,
                const std::string& first_name) {
  // Each part is whole and unedited, and of the same run as the first.
  if (!j.contains("checksum") || !j.at("checksum").is_string()) {
    throw InputError(fmt::format("merge: {}: no checksum (not a report of `softhat verify --json`)", name));
  }
  if (j.at("checksum") != content_checksum(j)) {
    throw InputError(fmt::format("merge: {}: the checksum does not match the content (the file was edited or "
                                 "damaged)",
                                 name));
  }
  if (j.value("run_id", std::string()) != run_id(j)) {
    throw InputError(fmt::format("merge: {}: run_id does not match the run's parameters", name));
  }
  for (const char* key : kRunKeys) {
    if (j.value(key, nlohmann::json()) != first.value(key, nlohmann::json())) {
      std::string what = key;
      if (std::string(key) == "run") {
        for (const auto& [k, v] : j.at("run").items()) {
          if (first.at("run").value(k, nlohmann::json()) != v) what = k;
        }
      }
      throw InputError(fmt::format("merge: {} is another run than {}: its {} differs", name, first_name, what));
    }
  }
  for (const auto& l : j.at("languages")) {
    if (!l.contains("rows")) continue;
    for (const auto& row : l.at("rows")) {
      if (io::json_unsigned(row.at("agreed"), "agreed") > io::json_unsigned(row.at("words"), "words")) {
        throw InputError(fmt::format("merge: {}: language {} agrees on more words than it tested", name,
                                     l.at("language").dump()));
      }
    }
  }
}
// A merged language's shortest disagreement is what the summary prints: one
// is present exactly when some word disagreed, with a verdict per source (or
// the two outputs of a transducer). A forged part may claim otherwise.
void check_disagreement(const VerifyReport& r) {
  if (!r.skipped.empty()) return;
  if (r.disagreements > r.words) {
    throw InputError(fmt::format("merge: {}: {} disagreements among {} words", r.language, r.disagreements, r.words));
  }
  if (r.disagreements == 0) {
    if (r.shortest) throw InputError(fmt::format("merge: {}: a shortest disagreement but no disagreements", r.language));
    return;
  }
  if (!r.shortest) throw InputError(fmt::format("merge: {}: disagreements but no shortest disagreement", r.language));
  const std::size_t have = r.task ? r.shortest->outputs.size() : r.shortest->verdicts.size();
  const std::size_t want = r.task ? 2 : r.sources.size();
  if (have != want) {
    throw InputError(fmt::format("merge: {}: the shortest disagreement has {} {}, not {}", r.language, have,
                                 r.task ? "outputs" : "verdicts", want));
  }
}
}  // namespace

MergedVerify merge_verify_json(const std::vector<nlohmann::json>& shards, const std::vector<std::string>& names) {
  if (shards.empty()) throw InputError("merge: no reports given");
  auto name = [&](std::size_t s) { return s < names.size() ? names[s] : fmt::format("report {}", s + 1); };
  MergedVerify m;
  const nlohmann::json& first = shards[0];
  std::set<std::uint64_t> seen;  // a set: N is the file's word, and may be anything
  std::uint64_t count = 0;
  for (std::size_t s = 0; s < shards.size(); ++s) {
    const nlohmann::json& j = shards[s];
    check_part(j, first, name(s), name(0));
    const Shard sh = parse_shard(j.value("shard", std::string("0/1")));
    if (s == 0) count = sh.count;
    if (sh.count != count) {
      throw InputError(fmt::format("merge: {} is shard {}/{}, not of {}", name(s), sh.index, sh.count, count));
    }
    if (!seen.insert(sh.index).second) {
      throw InputError(fmt::format("merge: {}: shard {}/{} given twice", name(s), sh.index, sh.count));
    }
    if (j.at("languages").size() != first.at("languages").size()) {
      throw InputError(fmt::format("merge: {} covers other languages than {}", name(s), name(0)));
    }
  }
  for (std::uint64_t k = 0; k < count; ++k) {  // the first missing one is at most the number of files
    if (!seen.count(k)) throw InputError(fmt::format("merge: shard {}/{} is missing", k, count));
  }
  const nlohmann::json& run = first.at("run");
  if (!run.at("max_len").is_null()) m.options.max_len = io::json_unsigned(run.at("max_len"), "max_len");
  // Each length checked as a count: a float out of range (1e300) must be an
  // error, not a conversion with undefined behaviour (found by fuzz_merge).
  if (!run.at("lengths").is_array()) throw InputError(fmt::format("merge: {}: run.lengths is not a list", name(0)));
  m.options.lengths.clear();
  for (const nlohmann::json& l : run.at("lengths")) m.options.lengths.push_back(io::json_unsigned(l, "lengths"));
  m.options.samples = io::json_unsigned(run.at("samples"), "samples");
  if (!run.at("beta").is_null()) m.options.beta = compile::parse_beta(run.at("beta").get<std::string>());
  m.options.compile.c = run.at("c").get<double>();
  m.options.seed = io::json_unsigned(first.at("seed"), "seed");
  m.options.model_name = first.value("model", std::string());
  m.options.compile.pe = compile::parse_pe(first.at("pe").get<std::string>());
  m.options.mode = first.at("mode") == "softmax" ? model::AttentionMode::kSoftmax : model::AttentionMode::kHard;
  m.options.precision = first.at("precision") == "double" ? model::Precision::kDouble : model::Precision::kFloat;
  for (std::size_t li = 0; li < first.at("languages").size(); ++li) {
    VerifyReport r;
    for (std::size_t s = 0; s < shards.size(); ++s) {
      const nlohmann::json& l = shards[s].at("languages").at(li);
      if (s == 0) {
        r.language = l.at("language").get<std::string>();
        if (l.contains("skipped")) {
          r.skipped = l.at("skipped").get<std::string>();
          break;
        }
        r.sources = l.at("sources").get<std::vector<std::string>>();
        r.layers = io::json_int(l.at("layers"), "layers");
        r.heads = io::json_int(l.at("heads"), "heads");
        r.width = io::json_int(l.at("width"), "width");
        r.beta = l.at("beta").get<std::string>();
        r.task = l.at("task").get<bool>();
        r.max_len = io::json_unsigned(l.at("max_len"), "max_len");
        for (const auto& row : l.at("rows")) {
          VerifyRow vr;
          vr.label = row.at("lengths").get<std::string>();
          r.rows.push_back(vr);
        }
      } else if (l.at("language") != r.language) {
        throw InputError("merge: the reports cover different languages");
      }
      r.words += io::json_unsigned(l.at("words"), "words");
      r.disagreements += io::json_unsigned(l.at("disagreements"), "disagreements");
      if (l.at("rows").size() != r.rows.size()) throw InputError("merge: the reports have different rows");
      for (std::size_t k = 0; k < r.rows.size(); ++k) {
        const nlohmann::json& row = l.at("rows").at(k);
        VerifyRow& vr = r.rows[k];
        vr.words += io::json_unsigned(row.at("words"), "words");
        vr.agreed += io::json_unsigned(row.at("agreed"), "agreed");
        vr.positives += io::json_unsigned(row.at("accepted"), "accepted");
        vr.min_target_mass = std::min(vr.min_target_mass, json_double(row.at("min_target_mass")));
        vr.min_scaled_gap = std::min(vr.min_scaled_gap, json_double(row.at("min_scaled_gap")));
        vr.min_output_margin = std::min(vr.min_output_margin, json_double(row.at("min_output_margin")));
        if (r.task) {
          vr.positions += io::json_unsigned(row.at("positions"), "positions");
          vr.positions_agreed += io::json_unsigned(row.at("positions_agreed"), "positions_agreed");
        }
      }
      if (l.contains("shortest_disagreement")) {
        const nlohmann::json& d = l.at("shortest_disagreement");
        const std::string word = sym::declare(d.at("word").get<std::string>());  // UTF-8 -> codes
        const int row = io::json_int(d.at("row"), "row");
        const std::uint64_t index = io::json_unsigned(d.at("index"), "index");
        if (comes_first(word, row, index, r.shortest, r.shortest_row, r.shortest_index)) {
          Disagreement dis{word, {}, {}};
          if (r.task) {
            for (const auto& o : d.at("outputs")) dis.outputs.push_back(sym::declare(o.get<std::string>()));
          }
          else dis.verdicts = d.at("verdicts").get<std::vector<bool>>();
          r.shortest = dis;
          r.shortest_row = row;
          r.shortest_index = index;
        }
      }
    }
    check_disagreement(r);
    m.reports.push_back(std::move(r));
  }
  return m;
}

}  // namespace softhat::verify
