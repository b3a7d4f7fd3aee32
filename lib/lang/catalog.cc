#include "lang/catalog.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <toml++/toml.h>

#include "lang/builtin_files.h"
#include "logic/parse.h"
#include "util/error.h"
#include "util/read_file.h"
#include "util/symbols.h"

namespace softhat::lang {
namespace {

const std::set<std::string_view> kTopKeys = {"name",    "alphabet",  "formula",     "regex",    "class",
                                             "checker", "automaton", "construction", "task", "hops",
                                             "description", "reference"};

const char* type_name(toml::node_type t) {
  switch (t) {
    case toml::node_type::string: return "a string";
    case toml::node_type::integer: return "an integer";
    case toml::node_type::floating_point: return "a float";
    case toml::node_type::boolean: return "a boolean";
    case toml::node_type::table: return "a table";
    case toml::node_type::array: return "an array";
    default: return "a date or time";
  }
}

std::string at_line(const std::string& path, const toml::node& node) {
  return fmt::format("{}:{}", path, node.source().begin.line);
}

// A required or optional string field; wrong types name the line.
std::optional<std::string> string_field(const toml::table& table, std::string_view key, const std::string& path,
                                        bool required) {
  const toml::node* node = table.get(key);
  if (!node) {
    if (required) throw InputError(fmt::format("{}: missing required key '{}'", path, key));
    return std::nullopt;
  }
  if (!node->is_string()) {
    throw InputError(fmt::format("{}: '{}' must be a string, found {}", at_line(path, *node), key,
                                 type_name(node->type())));
  }
  return node->value<std::string>();
}

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] != b[j - 1])});
      diag = up;
    }
  }
  return row[b.size()];
}

}  // namespace

std::string read_text_file(const std::string& path) {
  return util::read_file(path, {.max_bytes = util::kMaxInputFile, .regular_only = true});
}

namespace {

// The file line of an inline multi-line string's first line: the value's
// line, or the next one when the opening """ ends its line (TOML drops that
// line break).
std::size_t first_value_line(std::string_view text, const toml::node& node) {
  const auto line = static_cast<std::size_t>(node.source().begin.line);
  const auto column = static_cast<std::size_t>(node.source().begin.column);
  std::size_t pos = 0;
  for (std::size_t l = 1; l < line && pos != std::string_view::npos; ++l) {
    pos = text.find('\n', pos);
    if (pos != std::string_view::npos) ++pos;
  }
  if (pos == std::string_view::npos) return line;
  std::size_t end = text.find('\n', pos);
  if (end == std::string_view::npos) end = text.size();
  std::string_view rest = text.substr(pos, end - pos);
  if (!rest.empty() && rest.back() == '\r') rest.remove_suffix(1);
  if (column == 0 || column - 1 > rest.size()) return line;
  rest.remove_prefix(column - 1);
  const bool triple = rest.rfind("\"\"\"", 0) == 0 || rest.rfind("'''", 0) == 0;
  return triple && rest.size() == 3 ? line + 1 : line;
}

}  // namespace

LanguageSpec parse_language_toml(std::string_view text, const std::string& path, const Catalog::FileReader& read) {
  toml::table table;
  try {
    table = toml::parse(text, path);
  } catch (const toml::parse_error& e) {
    throw InputError(fmt::format("{}:{}:{}: {}", path, e.source().begin.line, e.source().begin.column,
                                 e.description()));
  }
  for (const auto& [key, node] : table) {
    if (!kTopKeys.count(key.str())) {
      throw InputError(fmt::format("{}: unknown key '{}' (known: name, alphabet, formula, regex, class, "
                                   "checker, automaton, construction, task, hops, description, reference)",
                                   at_line(path, node), key.str()));
    }
  }
  LanguageSpec spec;
  spec.source = path;
  spec.name = *string_field(table, "name", path, true);
  spec.formula = string_field(table, "formula", path, false);
  spec.regex = string_field(table, "regex", path, false);
  spec.automaton = string_field(table, "automaton", path, false);
  // With an automaton the alphabet may be left out: its arcs' symbols.
  spec.alphabet = string_field(table, "alphabet", path, !spec.automaton).value_or("");
  try {
    spec.alphabet = logic::declare_alphabet(spec.alphabet);  // UTF-8 -> symbol codes (util/symbols.h)
  } catch (const InputError& e) {
    throw InputError(fmt::format("{}: {}", table.get("alphabet") ? at_line(path, *table.get("alphabet")) : path, e.what()));
  }
  if (spec.automaton && spec.automaton->find('\n') == std::string::npos) {
    // A file name, relative to this TOML file.
    namespace fs = std::filesystem;
    const std::string file = (fs::path(path).parent_path() / *spec.automaton).lexically_normal().string();
    std::optional<std::string> contents;
    std::string why;
    try {
      contents = read ? read(file) : read_text_file(file);
    } catch (const util::ReadError& e) {
      why = ": " + e.reason();
    }
    if (!contents) {
      throw InputError(fmt::format("{}: automaton: cannot read {}{}", at_line(path, *table.get("automaton")), file, why));
    }
    spec.automaton = std::move(contents);
    spec.automaton_file = file;
  } else if (spec.automaton) {
    spec.automaton_line = first_value_line(text, *table.get("automaton"));
  }
  spec.construction = string_field(table, "construction", path, false);
  if (std::optional<std::string> task = string_field(table, "task", path, false)) {
    const toml::node* hops = table.get("hops");
    if (!hops || !hops->is_integer()) {
      throw InputError(fmt::format("{}: a task needs an integer 'hops'", hops ? at_line(path, *hops) : path));
    }
    spec.task = TaskSpec{*task, static_cast<int>(std::clamp<std::int64_t>(hops->value<std::int64_t>().value_or(0), -1, 1000))};
  } else if (const toml::node* hops = table.get("hops")) {
    throw InputError(fmt::format("{}: 'hops' goes with 'task'", at_line(path, *hops)));
  }
  spec.language_class = *string_field(table, "class", path, true);
  spec.description = string_field(table, "description", path, false).value_or("");
  spec.reference = string_field(table, "reference", path, false).value_or("");
  if (const toml::node* node = table.get("checker")) {
    const toml::table* checker = node->as_table();
    if (!checker) throw InputError(fmt::format("{}: 'checker' must be a table", at_line(path, *node)));
    for (const auto& [key, sub] : *checker) {
      if (key.str() != "kind" && key.str() != "symbols") {
        throw InputError(fmt::format("{}: unknown key 'checker.{}' (known: kind, symbols)", at_line(path, sub),
                                     key.str()));
      }
    }
    const std::string where = at_line(path, *node);
    spec.checker = CheckerSpec{*string_field(*checker, "kind", where, true),
                               sym::declare(*string_field(*checker, "symbols", where, true))};
  }
  return spec;
}

Catalog Catalog::builtin(std::size_t max_states) {
  Catalog catalog(max_states);
  // languages/*.toml, and the automaton files they name (languages/*.att).
  const auto& files = builtin_language_files();
  const FileReader embedded = [&files](const std::string& path) -> std::optional<std::string> {
    for (const auto& [name, text] : files) {
      if (name == path) return std::string(text);
    }
    return std::nullopt;
  };
  for (const auto& [path, text] : files) {
    if (path.size() > 5 && path.substr(path.size() - 5) == ".toml") catalog.add_toml(text, std::string(path), embedded);
  }
  return catalog;
}

void Catalog::add_toml(std::string_view text, const std::string& path, const FileReader& read) {
  // Loaded under at least the default state limit: a small --max-states
  // applies to the languages a command selects (rebuilt under it), not to
  // every catalogue entry.
  Language lang = build_language(parse_language_toml(text, path, read), std::max(max_states_, automata::kDefaultMaxStates));
  // A construction's transformer is checked against the oracle directly; so
  // is the transformer of a language defined by an automaton or a regex
  // alone (a regex also has its own DFA to compare RE2 with).
  const bool alone = lang.spec.construction || (!lang.formula && (lang.automaton || lang.regex_dfa));
  if (!lang.is_task() && lang.sources().size() < (alone ? 1u : 2u)) {
    throw InputError(fmt::format("{}: language '{}' needs an oracle to check its formula against: a regex or a "
                                 "[checker] table",
                                 path, lang.name()));
  }
  for (const Language& other : languages_) {
    if (other.name() == lang.name()) {
      throw InputError(fmt::format("{}: language '{}' is already defined by {}", path, lang.name(),
                                   other.spec.source));
    }
  }
  languages_.push_back(std::move(lang));
}

void Catalog::add_directory(const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw InputError(fmt::format("catalogue folder {}: not a readable directory", dir));
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (entry.path().extension() == ".toml") files.push_back(entry.path());
  }
  if (ec) throw InputError(fmt::format("catalogue folder {}: {}", dir, ec.message()));
  std::sort(files.begin(), files.end());
  for (const fs::path& file : files) {
    std::string text;
    try {
      text = read_text_file(file.string());
    } catch (const util::ReadError& e) {
      throw InputError(fmt::format("{}: cannot read the file: {}", file.string(), e.reason()));
    }
    add_toml(text, file.string());
  }
}

const Language& Catalog::find(std::string_view name) const {
  for (const Language& lang : languages_) {
    if (lang.name() == name) return lang;
  }
  std::vector<std::string> close;
  for (const Language& lang : languages_) {
    if (edit_distance(name, lang.name()) <= 2 || lang.name().find(name) != std::string::npos) {
      close.push_back(lang.name());
    }
  }
  std::string hint = close.empty() ? "see `softhat list`" : fmt::format("did you mean {}?", fmt::join(close, ", "));
  throw InputError(fmt::format("unknown language '{}': {}", name, hint));
}

}  // namespace softhat::lang
