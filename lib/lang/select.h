// Which languages a command works on: catalogue names, --all, or one typed
// on the command line (--formula F --alphabet A [--regex R], or a task:
// --task khop --hops K --alphabet-size S), which is built
// exactly like a catalogue entry.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "lang/catalog.h"

namespace softhat::lang {

struct Selection {
  std::vector<std::string> names;
  bool all = false;
  std::optional<std::string> formula;
  std::optional<std::string> alphabet;
  std::optional<std::string> regex;
  // A task typed on the command line: --task khop --hops K (--alphabet A | --alphabet-size S).
  std::optional<std::string> task;
  std::optional<int> hops;
  std::optional<int> alphabet_size;
  // Whether anything was selected (names, --all, --formula or --task).
  bool any() const { return !names.empty() || all || formula.has_value() || task.has_value(); }
};

// Throws InputError for a contradictory or empty selection, or unknown names.
std::vector<Language> select_languages(const Catalog& catalog, const Selection& selection);

}  // namespace softhat::lang
