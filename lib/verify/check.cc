#include "verify/check.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <memory>

#include "automata/dfa.h"
#include "logic/eval.h"
#include "util/error.h"
#include "util/symbols.h"
#include "verify/sample_words.h"
#include "words/words.h"

namespace softhat::verify {

std::vector<VerdictSource> verdict_sources(const lang::Language& language) {
  std::vector<VerdictSource> out;
  if (language.formula) {
    logic::Formula f = *language.formula;
    out.push_back({"formula", [f](std::string_view w) { return logic::accepts(f, w); }});
  }
  if (language.regex) {
    const oracle::RegexOracle* re = &*language.regex;
    out.push_back({"regex", [re](std::string_view w) { return re->accepts(w); }});
  }
  if (language.checker) {
    const oracle::Checker* ch = &*language.checker;
    out.push_back({"checker", [ch](std::string_view w) { return ch->accepts(w); }});
  }
  if (language.automaton) {
    const automata::Dfa* a = &*language.automaton;
    out.push_back({"automaton", [a](std::string_view w) { return a->accepts(w); }});
  }
  // The minimal DFA built from the formula: a third, independent oracle for
  // every regular language (skipped, silently, past the state limit).
  if (language.formula && !((*language.formula)->bits & logic::kCountBit)) {
    try {
      auto dfa = std::make_shared<automata::Dfa>(automata::dfa_from_formula(*language.formula, language.alphabet(),
                                                                                          language.max_states));
      out.push_back({"dfa", [dfa](std::string_view w) { return dfa->accepts(w); }});
    } catch (const automata::LimitError&) {
    }
  }
  // A regex-only language: the regex's own DFA (automata/regex_dfa.h), next
  // to RE2 itself.
  if (language.regex_dfa) {
    const automata::Dfa* dfa = &*language.regex_dfa;
    out.push_back({"dfa", [dfa](std::string_view w) { return dfa->accepts(w); }});
  }
  return out;
}

std::function<Verdict(const std::string&)> oracle_verdict(const lang::Language& language) {
  if (language.is_task()) {
    const lang::Language* task = &language;
    return [task](const std::string& w) { return Verdict::output(task->transduce(w)); };
  }
  std::vector<VerdictSource> sources = verdict_sources(language);
  VerdictSource chosen = sources.front();
  for (const VerdictSource& s : sources) {
    if (s.name != "formula") {
      chosen = s;
      break;
    }
  }
  return [chosen](const std::string& w) { return Verdict::accept(chosen.accepts(w)); };
}

bool append_verdicts(const std::string& word, const std::vector<VerdictSource>& sources, std::vector<bool>& verdicts) {
  for (const VerdictSource& s : sources) verdicts.push_back(s.accepts(word));
  return std::all_of(verdicts.begin(), verdicts.end(), [&](bool v) { return v == verdicts.front(); });
}

bool comes_first(const std::string& word, int row, std::uint64_t index, const std::optional<Disagreement>& current,
                 int current_row, std::uint64_t current_index) {
  if (!current) return true;
  if (word.size() != current->word.size()) return word.size() < current->word.size();
  if (row != current_row) return row < current_row;
  return index < current_index;
}

namespace {

class Comparer {
 public:
  Comparer(const std::vector<VerdictSource>& sources, CheckReport& report) : sources_(sources), report_(report) {}

  void run(const std::string& word, CheckRow& row) {
    verdicts_.clear();
    const bool agree = append_verdicts(word, sources_, verdicts_);
    const std::uint64_t index = report_.words++;  // words in one sequence: one row for the order
    ++row.words;
    row.positives += verdicts_[0];
    if (agree) {
      ++row.agreed;
      return;
    }
    ++report_.disagreements;
    if (comes_first(word, 0, index, report_.shortest, 0, shortest_index_)) {
      report_.shortest = Disagreement{word, verdicts_, {}};
      shortest_index_ = index;
    }
  }

 private:
  const std::vector<VerdictSource>& sources_;
  CheckReport& report_;
  std::vector<bool> verdicts_;
  std::uint64_t shortest_index_ = 0;
};

}  // namespace

CheckReport check_language(const lang::Language& language, const CheckOptions& options) {
  const std::vector<VerdictSource> sources = verdict_sources(language);
  if (sources.size() < 2 && (language.spec.construction || language.is_task())) {
    CheckReport skipped;
    skipped.language = language.name();
    skipped.skipped = fmt::format("one oracle ({}); its transformer construction is checked by verify and simulate",
                                  sources.empty() ? "none" : sources[0].name);
    return skipped;
  }
  if (sources.size() < 2 && !language.formula && language.automaton) {
    CheckReport skipped;
    skipped.language = language.name();
    skipped.skipped = "one oracle (automaton); its transformer is checked against it by verify";
    return skipped;
  }
  if (sources.size() < 2) {
    throw InputError(fmt::format("language '{}' has only a {}: nothing to compare it with (give it a regex too)",
                                 language.name(), sources.at(0).name));
  }
  CheckReport report;
  report.language = language.name();
  for (const VerdictSource& s : sources) report.sources.push_back(s.name);
  report.max_len = options.max_len.value_or(words::default_max_len(language.alphabet().size()));
  Comparer comparer(sources, report);

  // The sampled rows are seeded by the seed, the alphabet and the language,
  // not its name: a formula typed on the command line sees exactly its
  // catalogue twin's words.
  util::check_memory(sampled_words_bytes(options.lengths, options.samples), options.max_memory,
                     fmt::format("{} sampled words per length", options.samples));
  for (const words::WordSource& source :
       language_rows(language, report.max_len, options.lengths, options.samples, options.seed, options.max_memory)) {
    CheckRow row{source.label};
    for (std::uint64_t i = 0; i < source.count; ++i) comparer.run(source.at(i), row);
    report.rows.push_back(row);
  }
  return report;
}

std::string format_check_reports(const std::vector<CheckReport>& reports) {
  std::string out = fmt::format("{:<24} {:<24} {:>12} {:>10} {:>10} {:>10}\n", "language", "sources",
                                "lengths", "words", "accepted", "agreement");
  std::uint64_t words = 0, disagreements = 0;
  std::size_t failing = 0;
  std::size_t skipped = 0;
  for (const CheckReport& r : reports) {
    if (!r.skipped.empty()) {
      ++skipped;
      continue;
    }
    bool first = true;
    for (const CheckRow& row : r.rows) {
      const double rate = row.words ? 100.0 * static_cast<double>(row.agreed) / static_cast<double>(row.words) : 100.0;
      out += fmt::format("{:<24} {:<24} {:>12} {:>10} {:>10} {:>9.2f}%\n", first ? r.language : "",
                         first ? fmt::format("{}", fmt::join(r.sources, "=")) : "", row.label, row.words,
                         row.positives, rate);
      first = false;
    }
    words += r.words;
    disagreements += r.disagreements;
    if (!r.ok()) ++failing;
  }
  for (const CheckReport& r : reports) {
    if (!r.skipped.empty()) out += fmt::format("skipped {}: {}\n", r.language, r.skipped);
  }
  for (const CheckReport& r : reports) {
    if (r.ok()) continue;
    std::vector<std::string> verdicts;
    for (std::size_t i = 0; i < r.sources.size(); ++i) {
      verdicts.push_back(fmt::format("{}={}", r.sources[i], r.shortest->verdicts[i] ? "TRUE" : "FALSE"));
    }
    out += fmt::format("DISAGREE {}: {} of {} words; shortest \"{}\" ({})\n", r.language, r.disagreements,
                       r.words, sym::encode(r.shortest->word), fmt::join(verdicts, ", "));
  }
  out += fmt::format("{} languages, {} skipped, {} words, {} disagreements, {} languages disagree\n",
                     reports.size() - skipped, skipped, words, disagreements, failing);
  return out;
}

nlohmann::ordered_json check_reports_json(const std::vector<CheckReport>& reports, const CheckOptions& options) {
  nlohmann::ordered_json j;
  j["seed"] = options.seed;
  j["samples"] = options.samples;
  j["languages"] = nlohmann::ordered_json::array();
  std::uint64_t words = 0, disagreements = 0;
  for (const CheckReport& r : reports) {
    nlohmann::ordered_json l;
    l["language"] = r.language;
    if (!r.skipped.empty()) {
      l["skipped"] = r.skipped;
      j["languages"].push_back(std::move(l));
      continue;
    }
    l["sources"] = r.sources;
    l["max_len"] = r.max_len;
    l["words"] = r.words;
    l["disagreements"] = r.disagreements;
    l["rows"] = nlohmann::ordered_json::array();
    for (const CheckRow& row : r.rows) {
      l["rows"].push_back({{"lengths", row.label}, {"words", row.words}, {"agreed", row.agreed}, {"accepted", row.positives}});
    }
    if (r.shortest) {
      nlohmann::ordered_json verdicts;
      for (std::size_t i = 0; i < r.sources.size(); ++i) verdicts[r.sources[i]] = static_cast<bool>(r.shortest->verdicts[i]);
      l["shortest_disagreement"] = {{"word", sym::encode(r.shortest->word)}, {"verdicts", verdicts}};
    }
    words += r.words;
    disagreements += r.disagreements;
    j["languages"].push_back(std::move(l));
  }
  j["words"] = words;
  j["disagreements"] = disagreements;
  j["ok"] = disagreements == 0;
  return j;
}

}  // namespace softhat::verify
