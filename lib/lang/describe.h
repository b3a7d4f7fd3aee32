// Text descriptions of languages for `softhat list` and `softhat show`.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>

#include "automata/monoid.h"
#include "lang/catalog.h"

namespace softhat::lang {

std::string format_catalog_table(const Catalog& catalog);
std::string describe_language(const Language& language);
// The same facts as JSON (docs/json.md: list, show).
nlohmann::ordered_json catalog_json(const Catalog& catalog);
nlohmann::ordered_json language_json(const Language& language);

// What analyze reports about a language's minimal DFA: its size and source,
// its transition monoid, and star-freeness (a witness if not), or why there
// is none.
struct AutomatonFacts {
  std::optional<std::size_t> states;  // set: the DFA was built
  std::string from;                   // "formula", "automaton" or "regex"
  std::string missing;                // no DFA: why (a limit's message, or the language's kind)
  std::optional<automata::MonoidReport> monoid;
  std::string monoid_missing;         // the monoid's limit, if it stopped
};
AutomatonFacts automaton_facts(const Language& language);
// DFA size, monoid size, star-free certificate or witness, as text lines.
std::string describe_automaton(const AutomatonFacts& facts);
nlohmann::ordered_json automaton_json(const AutomatonFacts& facts);

}  // namespace softhat::lang
