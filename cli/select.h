// Which languages a command works on: catalogue names, --all, or one typed
// on the command line (--formula F --alphabet A [--regex R]; a regex alone,
// --regex R --alphabet A; or a task: --task khop --hops K --alphabet-size S),
// or acceptors in AT&T files (--att FILE|DIR..., one language per file, named
// after the file without .att; --alphabet optional), each built exactly like
// a catalogue entry.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "lang/catalog.h"

namespace softhat::cli {

struct Selection {
  std::vector<std::string> names;
  bool all = false;
  std::optional<std::string> formula;
  std::optional<std::string> alphabet;
  std::optional<std::string> regex;  // with --formula: an oracle; alone: the language
  // --att: .att files, or folders whose *.att files (sorted by name) are taken.
  std::vector<std::string> att;
  // A task typed on the command line: --task khop --hops K (--alphabet A | --alphabet-size S).
  std::optional<std::string> task;
  std::optional<int> hops;
  std::optional<int> alphabet_size;
  // Whether anything was selected (names, --all, --formula, --regex, --att or --task).
  bool any() const {
    return !names.empty() || all || formula.has_value() || regex.has_value() || !att.empty() || task.has_value();
  }
};

// Throws InputError for a contradictory or empty selection, unknown names,
// or .att files that cannot be read.
// Every language is built under `max_states` (the CLI's --max-states).
std::vector<lang::Language> select_languages(const lang::Catalog& catalog, const Selection& selection,
                                             std::size_t max_states = automata::kDefaultMaxStates);

// Throws InputError for a contradictory or empty selection (what
// select_languages checks before it builds anything).
void check_selection(const Selection& selection);

// A language to build later: its name now, and what builds it (which may
// throw what select_languages throws for it). Call `build` once.
struct PendingLanguage {
  std::string name;
  std::function<lang::Language()> build;
};

// The selection as pending languages, for commands that treat each language
// on its own (verify --mlregtest-splits): an .att file is read and built only
// when its `build` is called, so one malformed file fails alone; every other
// selection is built now, as select_languages builds it.
std::vector<PendingLanguage> select_pending(const lang::Catalog& catalog, const Selection& selection,
                                            std::size_t max_states = automata::kDefaultMaxStates);

// One --att file's language: named after the file without .att; `alphabet`
// is symbol codes (declared), or "" for the arcs' symbols. Throws InputError
// for a file that cannot be read or is not an acceptor.
lang::Language att_language(const std::string& file, const std::string& alphabet,
                            std::size_t max_states = automata::kDefaultMaxStates);
std::string att_language_name(const std::string& file);

// The files --att names: each file as given, and each folder's *.att files
// sorted by name. Throws InputError for a missing path or a folder without
// *.att files.
std::vector<std::string> att_files(const std::vector<std::string>& paths);

}  // namespace softhat::cli
