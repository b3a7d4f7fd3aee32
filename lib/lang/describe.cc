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

std::string describe_automaton(const Language& l) {
  std::string out;
  try {
    const std::optional<automata::Dfa> built = regular_dfa(l);
    if (!built) {
      if (l.is_task()) return "dfa          - (a transduction task, not a language)\n";
      if (!l.formula) return "dfa          - (no formula, automaton or regex-only definition to build one from)\n";
      return "dfa          - (counting terms, no automaton: not regular in general)\n";
    }
    const automata::Dfa& dfa = *built;
    const bool from_formula = l.formula && !((*l.formula)->bits & logic::kCountBit);
    out += fmt::format("dfa          {} states (minimal, complete; from the {})\n", dfa.states(),
                       from_formula ? "formula" : l.automaton ? "automaton" : "regex");
    automata::MonoidReport m;
    try {
      m = automata::analyze_monoid(dfa);
    } catch (const automata::LimitError& e) {
      out += fmt::format("monoid       not computed: {}\n", e.what());
      return out;
    }
    out += fmt::format("monoid       {} elements\n", m.size);
    if (m.aperiodic) {
      out += "star-free    yes (the transition monoid is aperiodic)\n";
    } else {
      out += fmt::format("star-free    no: w = \"{}\" has w^{} != w^{} in the monoid (period {})\n",
                         sym::encode(m.witness->word), m.witness->index, m.witness->index + 1, m.witness->period);
    }
  } catch (const automata::LimitError& e) {
    out += fmt::format("dfa          not built: {}\n", e.what());
  }
  return out;
}

}  // namespace softhat::lang
