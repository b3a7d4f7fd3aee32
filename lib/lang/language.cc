#include "lang/language.h"

#include <fmt/format.h>

#include <algorithm>

#include "automata/regex_dfa.h"
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

std::string Language::defined_by() const {
  if (spec.task) return "task";
  if (spec.construction) return "construction";
  if (formula) return "formula";
  if (automaton) return "automaton";
  if (regex) return "regex";
  return "checker";
}

bool valid_name(std::string_view name) {
  if (name.empty()) return false;
  for (char c : name) {
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
          c == '.')) {
      return false;
    }
  }
  return true;
}

std::string Language::transduce(std::string_view word) const {
  if (!spec.task) throw std::logic_error("transduce() on a language that is not a task");
  return task::khop(word, spec.task->hops);
}

Language build_language(LanguageSpec spec, std::size_t max_states) {
  const std::string where = spec.source;
  auto fail = [&](const std::string& what) { throw InputError(fmt::format("{}: {}", where, what)); };
  if (spec.name.empty()) fail("the language has no name");
  if (!valid_name(spec.name)) {
    fail(fmt::format("name '{}' may only use letters, digits, '-', '_' and '.'", spec.name));
  }
  Language lang;
  lang.max_states = max_states;
  // The automaton: AT&T text from a .att file (its messages name that file
  // and line) or inline in a catalogue file (they name that file and line).
  auto read_automaton = [&](const std::optional<std::string>& alphabet) {
    const bool inline_text = spec.automaton_file.empty();
    const automata::AttSource att{inline_text ? spec.source : spec.automaton_file,
                                  inline_text ? spec.automaton_line : 1};
    auto in_context = [&](const std::string& what) {
      return what.rfind(where + ":", 0) == 0 ? what : fmt::format("{}: language '{}': {}", where, spec.name, what);
    };
    try {
      lang.automaton = automata::dfa_from_att(*spec.automaton, att, alphabet, max_states);
    } catch (const automata::LimitError& e) {
      throw automata::LimitError(in_context(e.what()), e.limit());
    } catch (const InputError& e) {
      throw InputError(in_context(e.what()));
    }
  };
  if (spec.automaton && spec.alphabet.empty() && !spec.task) {
    read_automaton(std::nullopt);
    spec.alphabet = lang.automaton->alphabet;
    if (spec.alphabet.empty()) {
      fail(fmt::format("language '{}': the automaton has no arcs, so no alphabet to read from it: give the "
                       "alphabet (on the command line, or alphabet = in a catalogue file)",
                       spec.name));
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
  } catch (const InputError& e) {
    const std::string what = e.what();
    fail(what.rfind("language '", 0) == 0 ? what : fmt::format("language '{}': {}", spec.name, what));
  }
  if (spec.automaton && !lang.automaton && !spec.task) read_automaton(spec.alphabet);
  if (spec.regex && !spec.formula && !spec.automaton && !spec.construction && !spec.task) {
    // A regex-only language: its own DFA (not RE2's), checked against RE2
    // before anything uses it. A difference is softhat's bug, not the user's.
    try {
      lang.regex_dfa = automata::dfa_from_regex(*spec.regex, spec.alphabet, max_states);
    } catch (const automata::LimitError& e) {
      throw automata::LimitError(fmt::format("{}: language '{}': regex '{}': {}", where, spec.name, *spec.regex, e.what()),
                                 e.limit());
    } catch (const automata::RegexError& e) {
      fail(fmt::format("language '{}': regex '{}': {}", spec.name, *spec.regex, e.what()));
    }
    if (const std::optional<std::string> word = oracle::first_disagreement(*lang.regex_dfa, *lang.regex)) {
      throw std::logic_error(fmt::format(
          "{}: language '{}': the DFA built from regex '{}' and RE2 disagree on \"{}\" (DFA {}, RE2 {}): a bug in "
          "automata::dfa_from_regex",
          where, spec.name, *spec.regex, sym::encode(*word), lang.regex_dfa->accepts(*word) ? "TRUE" : "FALSE",
          lang.regex->accepts(*word) ? "TRUE" : "FALSE"));
    }
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
    fail(fmt::format("language '{}' has no formula, regex, automaton or checker", lang.spec.name));
  }
  return lang;
}

}  // namespace softhat::lang

namespace softhat::lang {

bool has_regular_dfa(const Language& l) {
  return (l.formula && !((*l.formula)->bits & logic::kCountBit)) || l.automaton || l.regex_dfa;
}

std::optional<automata::Dfa> regular_dfa(const Language& l, std::optional<std::size_t> limit) {
  const std::size_t max_states = limit.value_or(l.max_states);
  if (l.formula && !((*l.formula)->bits & logic::kCountBit)) {
    return automata::dfa_from_formula(*l.formula, l.alphabet(), max_states);
  }
  if (l.automaton) return l.automaton;
  if (l.regex_dfa) return l.regex_dfa;
  return std::nullopt;
}

}  // namespace softhat::lang
