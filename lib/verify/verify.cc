#include "verify/verify.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>
#include <thread>
#include <cstdio>
#include <limits>

#include "cascade/holonomy.h"
#include "compile/acceptor.h"
#include "model/prefix_runner.h"
#include "task/khop.h"
#include "util/error.h"
#include "util/interrupt.h"
#include "util/random.h"
#include "util/symbols.h"
#include "verify/sample_words.h"
#include "verify/words.h"

namespace softhat::verify {

namespace {

// One row's words, addressable by index so that threads and shards can split
// them: every word up to a length in length-lexicographic order, or a list.
struct RowWords {
  std::string label;
  std::uint64_t count = 0;
  std::function<std::string(std::uint64_t)> at;
};

RowWords exhaustive_row(const std::string& alphabet, std::size_t max_len) {
  RowWords r{fmt::format("0-{} (all)", max_len), count_words(alphabet.size(), max_len), {}};
  r.at = [alphabet, max_len](std::uint64_t index) {
    const std::uint64_t k = alphabet.size();
    std::uint64_t len = 0, block = 1;
    while (index >= block && len < max_len) {  // skip the shorter lengths
      index -= block;
      ++len;
      block *= k;
    }
    std::string w(len, alphabet[0]);
    for (std::size_t p = len; p-- > 0;) {
      w[p] = alphabet[index % k];
      index /= k;
    }
    return w;
  };
  return r;
}

RowWords list_row(std::string label, std::vector<std::string> words) {
  auto shared = std::make_shared<std::vector<std::string>>(std::move(words));
  return {std::move(label), shared->size(), [shared](std::uint64_t i) { return (*shared)[i]; }};
}

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
    if (o.shortest && (!shortest || o.shortest->word.size() < shortest->word.size() ||
                       (o.shortest->word.size() == shortest->word.size() && o.shortest_index < shortest_index))) {
      shortest = o.shortest;
      shortest_index = o.shortest_index;
    }
  }
};

}  // namespace

VerifyReport verify_language(const lang::Language& language, const VerifyOptions& options) {
  VerifyReport report;
  report.language = language.name();
  if (!compile::has_acceptor(language)) {
    report.skipped = "no formula or construction to build a transformer from";
    return report;
  }
  std::optional<compile::Acceptor> built;
  try {
    built = compile::build_acceptor(language, options.compile);
  } catch (const cascade::NotStarFree& e) {
    // A language defined by a DFA that is not star-free has no transformer
    // of this kind (the witness says why): reported, not verified.
    const std::string prefix = fmt::format("language '{}': ", language.name());
    const std::string what = e.what();
    report.skipped = what.rfind(prefix, 0) == 0 ? what.substr(prefix.size()) : what;
    return report;
  }
  compile::Acceptor& acceptor = *built;
  const model::ModelConfig& cfg = acceptor.model.config;
  report.layers = static_cast<int>(cfg.layers.size());
  for (const model::LayerConfig& l : cfg.layers) report.heads += static_cast<int>(l.heads.size());
  report.width = cfg.d_model;
  report.beta = (options.beta ? *options.beta : cfg.beta).describe();
  const model::Engine engine(std::move(acceptor.model), options.precision);
  model::RunOptions run;
  run.mode = options.mode;
  run.beta = options.beta;
  run.trace = options.mode == model::AttentionMode::kSoftmax;
  report.task = language.is_task();
  report.max_len = options.max_len.value_or(default_max_len(language.alphabet().size()));

  const std::vector<VerdictSource> oracles = report.task ? std::vector<VerdictSource>{} : verdict_sources(language);
  report.sources.push_back("transformer");
  if (report.task) report.sources.push_back("oracle");
  for (const VerdictSource& s : oracles) report.sources.push_back(s.name);

  // One word: the transformer against every oracle (tasks: position by position).
  auto test = [&](const std::string& word, std::uint64_t index, Partial& p, const model::RunResult& r) {
    VerifyRow& row = p.row;
    ++row.words;
    if (r.margins) {
      row.min_target_mass = std::min(row.min_target_mass, r.margins->min_target_mass);
      row.min_scaled_gap = std::min(row.min_scaled_gap, r.margins->min_scaled_gap);
    }
    std::optional<Disagreement> d;
    if (report.task) {
      const std::string expected = language.transduce(word);
      row.min_output_margin = std::min(row.min_output_margin, r.min_symbol_margin);
      row.positions += word.size();
      for (std::size_t i = 0; i < word.size(); ++i) row.positions_agreed += (*r.output)[i] == expected[i];
      if (*r.output != expected) d = Disagreement{word, {}, {*r.output, expected}};
    } else {
      std::vector<bool> verdicts{r.accepted};
      for (const VerdictSource& s : oracles) verdicts.push_back(s.accepts(word));
      row.positives += r.accepted;
      row.min_output_margin = std::min(row.min_output_margin, r.output_margin);
      bool agree = true;
      for (bool v : verdicts) agree = agree && v == verdicts[0];
      if (!agree) d = Disagreement{word, verdicts, {}};
    }
    if (!d) {
      ++row.agreed;
      return;
    }
    ++p.disagreements;
    if (!p.shortest || word.size() < p.shortest->word.size()) {  // indices arrive in increasing order
      p.shortest = std::move(d);
      p.shortest_index = index;
    }
  };

  std::vector<RowWords> rows;
  rows.push_back(exhaustive_row(language.alphabet(), report.max_len));
  for (std::size_t n : options.lengths) {
    std::vector<std::string> words;
    if (report.task) {
      std::mt19937_64 rng = derived_rng(options.seed, "task-words:" + sym::encode(language.alphabet()), n);
      for (std::size_t i = 0; i < options.samples; ++i) {
        // Mostly the task generator's words (no equal neighbours), every fourth uniform.
        words.push_back(i % 4 == 3 ? random_word(rng, language.alphabet(), n, 0)
                                   : task::khop_word(rng, language.alphabet(), n));
      }
    } else {
      words = balanced_words(language, n, options.samples, options.seed);
    }
    rows.push_back(list_row(fmt::format("{}", n), std::move(words)));
  }

  const bool prefix_sharing = !report.task && options.mode == model::AttentionMode::kSoftmax &&
                              options.precision == model::Precision::kDouble &&
                              model::PrefixRunner::applies(engine.model());
  for (std::size_t ri = 0; ri < rows.size(); ++ri) {
    const RowWords& rw = rows[ri];
    const std::pair<std::uint64_t, std::uint64_t> range = shard_range(rw.count, options.shard);
    const std::uint64_t lo = range.first, hi = range.second;
    const int threads = static_cast<int>(std::clamp<std::uint64_t>(hi - lo, 1, std::max(1, options.threads)));
    std::vector<Partial> parts(static_cast<std::size_t>(threads));
    auto work = [&](int t) {
      const std::uint64_t a = lo + (hi - lo) * static_cast<std::uint64_t>(t) / static_cast<std::uint64_t>(threads);
      const std::uint64_t b = lo + (hi - lo) * static_cast<std::uint64_t>(t + 1) / static_cast<std::uint64_t>(threads);
      // Every word of the exhaustive row through a prefix-sharing runner when
      // the model is causal: consecutive words share all but a few positions.
      std::optional<model::PrefixRunner> runner;
      model::Runner words(engine);  // this thread's buffers
      for (std::uint64_t i = a; i < b && !interrupted(); ++i) {
        const std::string word = rw.at(i);
        if (ri == 0 && prefix_sharing) {
          if (!runner || runner->length() != word.size()) runner.emplace(engine.model(), word.size(), options.beta);
          test(word, i, parts[static_cast<std::size_t>(t)], runner->run(word));
        } else {
          test(word, i, parts[static_cast<std::size_t>(t)], words.run(word, run));
        }
      }
    };
    if (threads == 1) {
      work(0);
    } else {
      // A worker's exception (an engine error on one word) is rethrown here,
      // never left to terminate the process.
      std::vector<std::exception_ptr> failures(static_cast<std::size_t>(threads));
      std::vector<std::thread> pool;
      for (int t = 0; t < threads; ++t) {
        pool.emplace_back([&, t] {
          try {
            work(t);
          } catch (...) {
            failures[static_cast<std::size_t>(t)] = std::current_exception();
          }
        });
      }
      for (std::thread& th : pool) th.join();
      for (const std::exception_ptr& f : failures) {
        if (f) std::rethrow_exception(f);
      }
    }
    throw_if_interrupted();
    Partial total;
    total.row.label = rw.label;
    for (const Partial& p : parts) total.merge(p);
    report.words += total.row.words;
    report.disagreements += total.disagreements;
    // Rows are in order: an earlier row's equally short disagreement stays.
    if (total.shortest && (!report.shortest || total.shortest->word.size() < report.shortest->word.size())) {
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

nlohmann::ordered_json verify_reports_json(const std::vector<VerifyReport>& reports, const VerifyOptions& options) {
  nlohmann::ordered_json j;
  j["seed"] = options.seed;
  j["pe"] = compile::pe_name(options.compile.pe);
  j["mode"] = options.mode == model::AttentionMode::kSoftmax ? "softmax" : "hard";
  j["precision"] = options.precision == model::Precision::kDouble ? "double" : "float";
  if (options.shard.count > 1) j["shard"] = fmt::format("{}/{}", options.shard.index, options.shard.count);
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
  return j;
}

namespace {
double json_double(const nlohmann::json& v) {
  return v.is_null() ? std::numeric_limits<double>::infinity() : v.get<double>();
}
}  // namespace

MergedVerify merge_verify_json(const std::vector<nlohmann::json>& shards) {
  if (shards.empty()) throw InputError("merge: no reports given");
  MergedVerify m;
  const nlohmann::json& first = shards[0];
  std::vector<bool> seen;
  std::uint64_t count = 0;
  for (std::size_t s = 0; s < shards.size(); ++s) {
    const nlohmann::json& j = shards[s];
    for (const char* key : {"seed", "pe", "mode", "precision"}) {
      if (j.at(key) != first.at(key)) throw InputError(fmt::format("merge: report {} has another {}", s + 1, key));
    }
    const Shard sh = parse_shard(j.value("shard", std::string("0/1")));
    if (s == 0) {
      count = sh.count;
      seen.assign(count, false);
    }
    if (sh.count != count) throw InputError(fmt::format("merge: report {} is shard {}/{}, not of {}", s + 1, sh.index, sh.count, count));
    if (seen[sh.index]) throw InputError(fmt::format("merge: shard {}/{} given twice", sh.index, sh.count));
    seen[sh.index] = true;
    if (j.at("languages").size() != first.at("languages").size()) throw InputError("merge: the reports cover different languages");
  }
  for (std::uint64_t k = 0; k < count; ++k) {
    if (!seen[k]) throw InputError(fmt::format("merge: shard {}/{} is missing", k, count));
  }
  m.options.seed = first.at("seed").get<std::uint64_t>();
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
        r.layers = l.at("layers").get<int>();
        r.heads = l.at("heads").get<int>();
        r.width = l.at("width").get<int>();
        r.beta = l.at("beta").get<std::string>();
        r.task = l.at("task").get<bool>();
        r.max_len = l.at("max_len").get<std::size_t>();
        for (const auto& row : l.at("rows")) {
          VerifyRow vr;
          vr.label = row.at("lengths").get<std::string>();
          r.rows.push_back(vr);
        }
      } else if (l.at("language") != r.language) {
        throw InputError("merge: the reports cover different languages");
      }
      r.words += l.at("words").get<std::uint64_t>();
      r.disagreements += l.at("disagreements").get<std::uint64_t>();
      if (l.at("rows").size() != r.rows.size()) throw InputError("merge: the reports have different rows");
      for (std::size_t k = 0; k < r.rows.size(); ++k) {
        const nlohmann::json& row = l.at("rows").at(k);
        VerifyRow& vr = r.rows[k];
        vr.words += row.at("words").get<std::uint64_t>();
        vr.agreed += row.at("agreed").get<std::uint64_t>();
        vr.positives += row.at("accepted").get<std::uint64_t>();
        vr.min_target_mass = std::min(vr.min_target_mass, json_double(row.at("min_target_mass")));
        vr.min_scaled_gap = std::min(vr.min_scaled_gap, json_double(row.at("min_scaled_gap")));
        vr.min_output_margin = std::min(vr.min_output_margin, json_double(row.at("min_output_margin")));
        if (r.task) {
          vr.positions += row.at("positions").get<std::uint64_t>();
          vr.positions_agreed += row.at("positions_agreed").get<std::uint64_t>();
        }
      }
      if (l.contains("shortest_disagreement")) {
        const nlohmann::json& d = l.at("shortest_disagreement");
        const std::string word = sym::declare(d.at("word").get<std::string>());  // UTF-8 -> codes
        const int row = d.at("row").get<int>();
        const std::uint64_t index = d.at("index").get<std::uint64_t>();
        const bool better = !r.shortest || word.size() < r.shortest->word.size() ||
                            (word.size() == r.shortest->word.size() &&
                             (row < r.shortest_row || (row == r.shortest_row && index < r.shortest_index)));
        if (better) {
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
    m.reports.push_back(std::move(r));
  }
  return m;
}

}  // namespace softhat::verify
