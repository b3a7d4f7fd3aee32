// A language of the catalogue: its alphabet, its defining formula and its
// independent oracles (an RE2 regex and/or a hand-written checker).
//
// Every language, whether read from languages/*.toml, from a user's
// --catalog folder or typed on the command line (--formula/--alphabet/
// --regex), is built by build_language() from a LanguageSpec, so all three
// are validated and behave exactly alike.
#pragma once

#include <optional>
#include <string_view>
#include <string>
#include <vector>

#include "automata/dfa.h"
#include "logic/formula.h"
#include "oracle/checker.h"
#include "oracle/regex_oracle.h"

namespace softhat::lang {

struct CheckerSpec {
  std::string kind;
  std::string symbols;
};

// A transduction task (one output symbol per input position) instead of a
// language: kind "khop" with `hops` (task/khop.h).
struct TaskSpec {
  std::string kind;
  int hops = 1;
};

// The raw fields, as written in a catalogue file. Except: the alphabet and
// the checker's symbols are symbol codes (util/symbols.h); whoever reads
// them as UTF-8 text (catalogue files, --alphabet) declares them with
// logic::declare_alphabet, and build_language validates them.
struct LanguageSpec {
  std::string name;
  std::string alphabet;
  std::optional<std::string> formula;
  std::optional<std::string> regex;
  std::optional<CheckerSpec> checker;
  std::optional<std::string> automaton;  // AT&T text (automata::dfa_from_att)
  std::optional<std::string> construction;  // a built-in transformer construction: "dyck" (compile/acceptor.h)
  std::optional<TaskSpec> task;             // a transduction task instead of a language
  std::string language_class;  // star-free | regular | counting | context-free
  std::string description;
  std::string reference;
  std::string source;  // where it came from (file path, or "command line")
};

struct Language {
  LanguageSpec spec;
  std::optional<logic::Formula> formula;
  std::optional<oracle::RegexOracle> regex;
  std::optional<oracle::Checker> checker;
  std::optional<automata::Dfa> automaton;

  const std::string& name() const { return spec.name; }
  const std::string& alphabet() const { return spec.alphabet; }
  // "formula", "regex", "checker", "automaton": the verdict sources this language has.
  std::vector<std::string> sources() const;
  bool is_task() const { return spec.task.has_value(); }
  // The task's expected output for a word (its oracle); tasks only.
  std::string transduce(std::string_view word) const;
};

inline const std::vector<std::string> kLanguageClasses = {"star-free", "regular", "counting", "context-free",
                                                          "transduction"};

// Validates and builds. Throws softhat::InputError whose message starts with
// spec.source (and `where`, if given, e.g. a line) and says what is wrong.
Language build_language(LanguageSpec spec);

// The language's minimal DFA: from its formula when the formula is regular
// (no counting terms), else from its automaton; nullopt if it has neither.
// Throws automata::LimitError past max_states.
std::optional<automata::Dfa> regular_dfa(const Language& language,
                                         std::size_t max_states = automata::default_max_states());

}  // namespace softhat::lang
