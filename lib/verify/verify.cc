#include "verify/verify.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>

#include "compile/acceptor.h"
#include "task/khop.h"
#include "util/random.h"
#include "verify/sample_words.h"
#include "verify/words.h"

namespace softhat::verify {

VerifyReport verify_language(const lang::Language& language, const VerifyOptions& options) {
  VerifyReport report;
  report.language = language.name();
  if (!compile::has_acceptor(language)) {
    report.skipped = "no formula or construction to build a transformer from";
    return report;
  }
  compile::Acceptor acceptor = compile::build_acceptor(language, options.compile);
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

  if (language.is_task()) {
    report.task = true;
    report.sources = {"transformer", "oracle"};
    report.max_len = options.max_len.value_or(default_max_len(language.alphabet().size()));
    auto test = [&](const std::string& word, VerifyRow& row) {
      const model::RunResult r = engine.run(word, run);
      const std::string expected = language.transduce(word);
      ++row.words;
      ++report.words;
      row.min_output_margin = std::min(row.min_output_margin, r.min_symbol_margin);
      if (r.margins) {
        row.min_target_mass = std::min(row.min_target_mass, r.margins->min_target_mass);
        row.min_scaled_gap = std::min(row.min_scaled_gap, r.margins->min_scaled_gap);
      }
      row.positions += word.size();
      for (std::size_t i = 0; i < word.size(); ++i) row.positions_agreed += (*r.output)[i] == expected[i];
      if (*r.output == expected) {
        ++row.agreed;
        return;
      }
      ++report.disagreements;
      if (!report.shortest || word.size() < report.shortest->word.size()) {
        report.shortest = Disagreement{word, {}, {*r.output, expected}};
      }
    };
    VerifyRow exhaustive{fmt::format("0-{} (all)", report.max_len)};
    for_each_word(language.alphabet(), report.max_len, [&](const std::string& w) {
      test(w, exhaustive);
      return true;
    });
    report.rows.push_back(exhaustive);
    for (std::size_t n : options.lengths) {
      VerifyRow row{fmt::format("{}", n)};
      std::mt19937_64 rng = derived_rng(options.seed, "task-words:" + language.alphabet(), n);
      for (std::size_t i = 0; i < options.samples; ++i) {
        // Mostly the task generator's words (no equal neighbours), every fourth uniform.
        test(i % 4 == 3 ? random_word(rng, language.alphabet(), n, 0) : task::khop_word(rng, language.alphabet(), n),
             row);
      }
      report.rows.push_back(row);
    }
    return report;
  }

  std::vector<VerdictSource> oracles = verdict_sources(language);
  report.sources.push_back("transformer");
  for (const VerdictSource& s : oracles) report.sources.push_back(s.name);
  report.max_len = options.max_len.value_or(default_max_len(language.alphabet().size()));

  std::vector<bool> verdicts;
  auto test = [&](const std::string& word, VerifyRow& row) {
    const model::RunResult r = engine.run(word, run);
    verdicts.assign(1, r.accepted);
    for (const VerdictSource& s : oracles) verdicts.push_back(s.accepts(word));
    ++row.words;
    ++report.words;
    row.positives += r.accepted;
    row.min_output_margin = std::min(row.min_output_margin, r.output_margin);
    if (r.margins) {
      row.min_target_mass = std::min(row.min_target_mass, r.margins->min_target_mass);
      row.min_scaled_gap = std::min(row.min_scaled_gap, r.margins->min_scaled_gap);
    }
    bool agree = true;
    for (bool v : verdicts) agree = agree && v == verdicts[0];
    if (agree) {
      ++row.agreed;
      return;
    }
    ++report.disagreements;
    if (!report.shortest || word.size() < report.shortest->word.size()) report.shortest = Disagreement{word, verdicts};
  };

  VerifyRow exhaustive{fmt::format("0-{} (all)", report.max_len)};
  for_each_word(language.alphabet(), report.max_len, [&](const std::string& w) {
    test(w, exhaustive);
    return true;
  });
  report.rows.push_back(exhaustive);
  for (std::size_t n : options.lengths) {
    VerifyRow row{fmt::format("{}", n)};
    for (const std::string& w : balanced_words(language, n, options.samples, options.seed)) test(w, row);
    report.rows.push_back(row);
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
                       r.disagreements, r.words, r.shortest->word, r.shortest->outputs[0], r.shortest->outputs[1]);
  }
  for (const VerifyReport& r : reports) {
    if (r.ok() || r.task) continue;
    std::vector<std::string> v;
    for (std::size_t i = 0; i < r.sources.size(); ++i) {
      v.push_back(fmt::format("{}={}", r.sources[i], r.shortest->verdicts[i] ? "TRUE" : "FALSE"));
    }
    out += fmt::format("DISAGREE {}: {} of {} words; shortest \"{}\" ({})\n", r.language, r.disagreements, r.words,
                       r.shortest->word, fmt::join(v, ", "));
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
    if (r.shortest && r.task) {
      l["shortest_disagreement"] = {{"word", r.shortest->word}, {"outputs", r.shortest->outputs}};
    } else if (r.shortest) {
      l["shortest_disagreement"] = {{"word", r.shortest->word}, {"verdicts", r.shortest->verdicts}};
    }
    j["languages"].push_back(l);
  }
  return j;
}

}  // namespace softhat::verify
