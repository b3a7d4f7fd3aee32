#include "lang/language.h"

#include <fmt/format.h>

#include <algorithm>

#include "logic/parse.h"
#include "task/khop.h"
#include "util/error.h"
#include "util/symbols.h"

namespace softhat::lang {

std::vector<std::string> Language::sources() const {
  std::vector<std::string> out;
  if (formula) out.push_back("formula");
  if (regex) out.push_back("regex");
  if (checker) out.push_back("checker");
  if (automaton) out.push_back("automaton");
  return out;
}

std::string Language::transduce(std::string_view word) const {
  if (!spec.task) throw std::logic_error("transduce() on a language that is not a task");
  return task::khop(word, spec.task->hops);
}

Language build_language(LanguageSpec spec) {
  const std::string where = spec.source;
  auto fail = [&](const std::string& what) { throw InputError(fmt::format("{}: {}", where, what)); };
  if (spec.name.empty()) fail("the language has no name");
  for (char c : spec.name) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_')) {
      fail(fmt::format("name '{}' may only use lowercase letters, digits, '-' and '_'", spec.name));
    }
  }
  try {
    logic::validate_alphabet(spec.alphabet);
  } catch (const std::invalid_argument& e) {
    fail(fmt::format("language '{}': {}", spec.name, e.what()));
  }
  if (!spec.language_class.empty() &&
      std::find(kLanguageClasses.begin(), kLanguageClasses.end(), spec.language_class) ==
          kLanguageClasses.end()) {
    fail(fmt::format("language '{}': unknown class '{}' (known: star-free, regular, counting, context-free)",
                     spec.name, spec.language_class));
  }
  Language lang;
  if (spec.formula) {
    try {
      lang.formula = logic::parse(*spec.formula, spec.alphabet);
    } catch (const logic::ParseError& e) {
      fail(fmt::format("language '{}': formula: {}", spec.name, e.what()));
    }
  }
  try {
    if (spec.regex) lang.regex.emplace(*spec.regex, spec.name);
    if (spec.checker) lang.checker.emplace(spec.checker->kind, spec.checker->symbols);
    if (spec.automaton) lang.automaton = automata::dfa_from_att(*spec.automaton, spec.alphabet);
  } catch (const InputError& e) {
    const std::string what = e.what();
    fail(what.rfind("language '", 0) == 0 ? what : fmt::format("language '{}': {}", spec.name, what));
  }
  if (spec.checker) {
    for (char c : spec.checker->symbols) {
      if (spec.alphabet.find(c) == std::string::npos) {
        fail(fmt::format("language '{}': checker symbol '{}' is not in the alphabet", spec.name, sym::encode(c)));
      }
    }
  }
  if (spec.construction) {
    if (*spec.construction != "dyck") {
      fail(fmt::format("language '{}': unknown construction '{}' (known: dyck)", spec.name, *spec.construction));
    }
    if (spec.formula) fail(fmt::format("language '{}': give a formula or a construction, not both", spec.name));
    if (spec.alphabet.size() % 2) {
      fail(fmt::format("language '{}': the dyck construction needs an alphabet of open/close pairs, e.g. ()[]",
                       spec.name));
    }
  }
  if (spec.task) {
    if (spec.task->kind != "khop") fail(fmt::format("task '{}': unknown kind '{}' (known: khop)", spec.name, spec.task->kind));
    if (spec.task->hops < 1 || spec.task->hops > 64) {
      fail(fmt::format("task '{}': hops {} is outside 1..64", spec.name, spec.task->hops));
    }
    if (spec.formula || spec.regex || spec.checker || spec.automaton || spec.construction) {
      fail(fmt::format("task '{}': a task has its own oracle and construction; it takes no formula, regex, "
                       "checker, automaton or construction",
                       spec.name));
    }
    if (spec.alphabet.size() < 2 || spec.alphabet.find(task::kUndefined) != std::string::npos) {
      fail(fmt::format("task '{}': the alphabet needs at least 2 symbols and no '~' (the undefined output)",
                       spec.name));
    }
    lang.spec = std::move(spec);
    return lang;
  }
  lang.spec = std::move(spec);
  if (lang.sources().empty()) {
    fail(fmt::format("language '{}' has no formula, regex or checker", lang.spec.name));
  }
  return lang;
}

}  // namespace softhat::lang

namespace softhat::lang {

std::optional<automata::Dfa> regular_dfa(const Language& l, std::size_t max_states) {
  if (l.formula && !((*l.formula)->bits & logic::kCountBit)) {
    return automata::dfa_from_formula(*l.formula, l.alphabet(), max_states);
  }
  if (l.automaton) return l.automaton;
  return std::nullopt;
}

}  // namespace softhat::lang
