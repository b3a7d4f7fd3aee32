// A language of the catalogue: its alphabet, what defines it (a formula, a
// regex, an automaton, a construction or a task) and its independent
// oracles (an RE2 regex, a hand-written checker, an automaton).
//
// Every language, whether read from languages/*.toml, from a user's
// --catalog folder, typed on the command line (--formula/--regex/--alphabet)
// or read from an AT&T file (--att), is built by build_language() from a
// LanguageSpec, so all of them are validated and behave exactly alike.
// A language without a formula still has a transformer when it has a
// regular DFA (compile/acceptor.h): from its automaton, or from its regex
// (automata/regex_dfa.h, cross-checked against RE2 when it is built).
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
  std::string automaton_file;            // the .att file it was read from; empty: inline in `source`
  std::size_t automaton_line = 1;        // inline: the line of `source` holding its first line
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
  // The DFA state limit it was built under (the CLI's --max-states): every
  // automaton built for it later (regular_dfa, check, the acceptor) uses it.
  std::size_t max_states = automata::kDefaultMaxStates;
  // A language defined by its regex alone (no formula, automaton or
  // construction): the regex's own minimal DFA (automata::dfa_from_regex),
  // built when the language is and checked against RE2 then.
  std::optional<automata::Dfa> regex_dfa;

  const std::string& name() const { return spec.name; }
  const std::string& alphabet() const { return spec.alphabet; }
  // "formula", "regex", "checker", "automaton": the verdict sources this language has.
  std::vector<std::string> sources() const;
  // What defines the language (its DFA and transformer come from it): "task",
  // "construction", "formula", "automaton", "regex" or "checker".
  std::string defined_by() const;
  bool is_task() const { return spec.task.has_value(); }
  // The task's expected output for a word (its oracle); tasks only.
  std::string transduce(std::string_view word) const;
};

inline const std::vector<std::string> kLanguageClasses = {"star-free", "regular", "counting", "context-free",
                                                          "transduction"};

// A language name: ASCII letters (either case), digits, '-', '_' and '.'
// (names of .att files such as 04.04.SF.0.0.3 are names).
bool valid_name(std::string_view name);

// Validates and builds. Throws softhat::InputError whose message starts with
// spec.source (and `where`, if given, e.g. a line) and says what is wrong.
// An empty alphabet with an automaton: the automaton's arc symbols, in order
// of first appearance (stored back into the spec). A regex-only language's
// DFA is built here (limit: max_states, recorded in the language) and compared with
// RE2 (oracle::first_disagreement); a difference is a std::logic_error (a
// bug: exit status 3) naming the shortest word. max_states limits the
// automaton's states and the regex's DFA (automata::LimitError).
Language build_language(LanguageSpec spec, std::size_t max_states = automata::kDefaultMaxStates);

// Whether regular_dfa() has a DFA to give: a formula without counting terms,
// an automaton, or a regex-only language.
bool has_regular_dfa(const Language& language);

// The language's minimal DFA: from its formula when the formula is regular
// (no counting terms), else from its automaton, else (regex-only languages)
// from its regex; nullopt if it has none of them.
// Throws automata::LimitError past max_states (default: the language's own).
std::optional<automata::Dfa> regular_dfa(const Language& language, std::optional<std::size_t> max_states = {});

}  // namespace softhat::lang
