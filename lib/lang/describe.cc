#include "lang/describe.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "automata/dfa.h"
#include "automata/monoid.h"
#include "logic/parse.h"
#include "logic/print.h"
#include "util/symbols.h"

namespace softhat::lang {

namespace {
std::string fragment_of(const Language& l) {
  return l.formula ? logic::fragment_name(logic::fragment(*l.formula)) : "-";
}
}  // namespace

std::string format_catalog_table(const Catalog& catalog) {
  std::string out = fmt::format("{:<24} {:<10} {:<13} {:<11} {:<12} {:<22} {}\n", "name", "alphabet", "class",
                                "fragment", "defined by", "sources", "description");
  for (const Language& l : catalog.languages()) {
    out += fmt::format("{:<24} {:<10} {:<13} {:<11} {:<12} {:<22} {}\n", l.name(), sym::encode(l.alphabet()), l.spec.language_class,
                       fragment_of(l), l.defined_by(), fmt::format("{}", fmt::join(l.sources(), ",")),
                       l.spec.description);
  }
  return out;
}

namespace {
std::vector<std::string> symbols_of(const std::string& alphabet) {
  std::vector<std::string> out;
  for (char c : alphabet) out.push_back(sym::encode(c));
  return out;
}
nlohmann::ordered_json text_or_null(const std::string& text) {
  return text.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(text);
}
}  // namespace

nlohmann::ordered_json catalog_json(const Catalog& catalog) {
  nlohmann::ordered_json j;
  j["languages"] = nlohmann::ordered_json::array();
  for (const Language& l : catalog.languages()) {
    j["languages"].push_back({{"name", l.name()},
                              {"alphabet", symbols_of(l.alphabet())},
                              {"class", l.spec.language_class},
                              {"fragment", fragment_of(l)},
                              {"defined_by", l.defined_by()},
                              {"sources", l.sources()},
                              {"description", l.spec.description}});
  }
  return j;
}

nlohmann::ordered_json language_json(const Language& l) {
  nlohmann::ordered_json j;
  j["name"] = l.name();
  j["alphabet"] = symbols_of(l.alphabet());
  j["class"] = text_or_null(l.spec.language_class);
  j["defined_by"] = l.defined_by();
  j["fragment"] = fragment_of(l);
  if (l.formula) {
    j["formula"] = {{"text", *l.spec.formula},
                    {"normalized", logic::to_string(*l.formula)},
                    {"subformulas", logic::subformulas(*l.formula).size()},
                    {"depth", (*l.formula)->depth}};
  } else {
    j["formula"] = nullptr;
  }
  j["regex"] = l.regex ? nlohmann::ordered_json(l.regex->pattern()) : nlohmann::ordered_json();
  j["checker"] = l.checker ? nlohmann::ordered_json(l.checker->describe()) : nlohmann::ordered_json();
  if (l.automaton) {
    j["automaton"] = {{"states", l.automaton->states()},
                      {"file", l.spec.automaton_file.empty() ? nlohmann::ordered_json()
                                                             : nlohmann::ordered_json(l.spec.automaton_file)}};
  } else {
    j["automaton"] = nullptr;
  }
  j["regex_dfa_states"] = l.regex_dfa ? nlohmann::ordered_json(l.regex_dfa->states()) : nlohmann::ordered_json();
  j["sources"] = l.sources();
  j["description"] = text_or_null(l.spec.description);
  j["reference"] = text_or_null(l.spec.reference);
  j["source"] = l.spec.source;
  return j;
}

std::string describe_language(const Language& l) {
  std::string out;
  auto line = [&out](std::string_view key, const std::string& value) {
    out += fmt::format("{:<12} {}\n", fmt::format("{}:", key), value);
  };
  line("name", l.name());
  line("alphabet", sym::alphabet_set(l.alphabet()));
  line("class", l.spec.language_class.empty() ? "-" : l.spec.language_class);
  line("defined by", l.defined_by());
  line("fragment", fragment_of(l));
  if (l.formula) {
    line("formula", *l.spec.formula);
    line("normalized", logic::to_string(*l.formula));
    line("structure", logic::dump(*l.formula));
    line("size", fmt::format("{} distinct subformulas, depth {}", logic::subformulas(*l.formula).size(),
                             (*l.formula)->depth));
  } else {
    line("formula", "-");
  }
  line("regex", l.regex ? l.regex->pattern() : "-");
  line("checker", l.checker ? l.checker->describe() : "-");
  line("automaton", l.automaton ? fmt::format("{} states (minimal DFA of the AT&T automaton {})", l.automaton->states(),
                                             l.spec.automaton_file.empty() ? "inline in " + l.spec.source
                                                                           : l.spec.automaton_file)
                                : "-");
  if (l.regex_dfa) line("regex dfa", fmt::format("{} states (minimal DFA of the regex, agrees with RE2)", l.regex_dfa->states()));
  line("description", l.spec.description.empty() ? "-" : l.spec.description);
  line("reference", l.spec.reference.empty() ? "-" : l.spec.reference);
  line("source", l.spec.source);
  return out;
}

}  // namespace softhat::lang

namespace softhat::lang {

AutomatonFacts automaton_facts(const Language& l) {
  AutomatonFacts f;
  try {
    const std::optional<automata::Dfa> built = regular_dfa(l);
    if (!built) {
      f.missing = l.is_task()   ? "a transduction task, not a language"
                  : !l.formula ? "no formula, automaton or regex-only definition to build one from"
                               : "counting terms, no automaton: not regular in general";
      return f;
    }
    f.states = built->states();
    const bool from_formula = l.formula && !((*l.formula)->bits & logic::kCountBit);
    f.from = from_formula ? "formula" : l.automaton ? "automaton" : "regex";
    try {
      f.monoid = automata::analyze_monoid(*built);
    } catch (const automata::LimitError& e) {
      f.monoid_missing = e.what();
    }
  } catch (const automata::LimitError& e) {
    f.missing = fmt::format("not built: {}", e.what());
  }
  return f;
}

std::string describe_automaton(const AutomatonFacts& f) {
  if (!f.states) {
    return f.missing.rfind("not built: ", 0) == 0 ? fmt::format("dfa          {}\n", f.missing)
                                                  : fmt::format("dfa          - ({})\n", f.missing);
  }
  std::string out = fmt::format("dfa          {} states (minimal, complete; from the {})\n", *f.states, f.from);
  if (!f.monoid) return out + fmt::format("monoid       not computed: {}\n", f.monoid_missing);
  const automata::MonoidReport& m = *f.monoid;
  out += fmt::format("monoid       {} elements\n", m.size);
  if (m.aperiodic) {
    out += "star-free    yes (the transition monoid is aperiodic)\n";
  } else {
    out += fmt::format("star-free    no: w = \"{}\" has w^{} != w^{} in the monoid (period {})\n",
                       sym::encode(m.witness->word), m.witness->index, m.witness->index + 1, m.witness->period);
  }
  return out;
}

nlohmann::ordered_json automaton_json(const AutomatonFacts& f) {
  nlohmann::ordered_json j;
  if (!f.states) {
    j["states"] = nullptr;
    j["missing"] = f.missing;
    return j;
  }
  j["states"] = *f.states;
  j["from"] = f.from;
  if (!f.monoid) {
    j["monoid"] = nullptr;
    j["monoid_missing"] = f.monoid_missing;
    return j;
  }
  j["monoid"] = f.monoid->size;
  j["star_free"] = f.monoid->aperiodic;
  if (f.monoid->witness) {
    j["witness"] = {{"word", sym::encode(f.monoid->witness->word)},
                    {"index", f.monoid->witness->index},
                    {"period", f.monoid->witness->period}};
  }
  return j;
}

}  // namespace softhat::lang
