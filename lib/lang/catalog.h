// The language catalogue: one TOML file per language (architecture.md,
// "Language catalogue"). The built-in files of languages/ are compiled into
// the binary; `--catalog DIR` adds a user's folder of *.toml files.
//
// Keys: name, alphabet, class, description, reference (strings), formula
// and regex (optional strings), automaton (an AT&T file's path relative to
// the TOML file, or the AT&T text inline: a value with a line break), and an
// optional [checker] table with kind and symbols. Unknown keys are errors
// (they are usually typos). A malformed file is reported with its path, the
// line, and what is wrong.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lang/language.h"

namespace softhat::lang {

class Catalog {
 public:
  // An empty catalogue whose languages are built under at least the default
  // state limit, or `max_states` if larger: a small --max-states applies to
  // the languages a command selects (rebuilt under it), not to every entry.
  explicit Catalog(std::size_t max_states = automata::kDefaultMaxStates) : max_states_(max_states) {}

  // The languages compiled into the binary.
  static Catalog builtin(std::size_t max_states = automata::kDefaultMaxStates);

  // Reads the file a catalogue entry names (an automaton), nullopt if it
  // cannot; the default reads the file system.
  using FileReader = std::function<std::optional<std::string>(const std::string& path)>;

  // Parses one TOML document; `path` names it in errors, and files it names
  // are found relative to it.
  void add_toml(std::string_view text, const std::string& path, const FileReader& read = {});
  // Adds every *.toml file of a folder (sorted by file name).
  void add_directory(const std::string& dir);

  const std::vector<Language>& languages() const { return languages_; }
  // Throws InputError listing close names if there is no such language.
  const Language& find(std::string_view name) const;

 private:
  std::vector<Language> languages_;
  std::size_t max_states_;
};

// Reads a whole catalogue-format document into a spec (used by add_toml).
// An automaton file is read through `read` (default: the file system).
LanguageSpec parse_language_toml(std::string_view text, const std::string& path, const Catalog::FileReader& read = {});

// The contents of a catalogue, automaton or --att file (a regular file, at
// most 1 GiB; util/read_file.h). Throws util::ReadError.
std::string read_text_file(const std::string& path);

}  // namespace softhat::lang
