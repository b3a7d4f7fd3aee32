#include "lang/catalog.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <toml++/toml.h>

#include "lang/builtin_files.h"
#include "logic/parse.h"
#include "util/error.h"
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

LanguageSpec parse_language_toml(std::string_view text, const std::string& path) {
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
  spec.alphabet = *string_field(table, "alphabet", path, true);
  try {
    spec.alphabet = logic::declare_alphabet(spec.alphabet);  // UTF-8 -> symbol codes (util/symbols.h)
  } catch (const InputError& e) {
    throw InputError(fmt::format("{}: {}", table.get("alphabet") ? at_line(path, *table.get("alphabet")) : path, e.what()));
  }
  spec.formula = string_field(table, "formula", path, false);
  spec.regex = string_field(table, "regex", path, false);
  spec.automaton = string_field(table, "automaton", path, false);
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

Catalog Catalog::builtin() {
  Catalog catalog;
  for (const auto& [path, text] : builtin_language_files()) catalog.add_toml(text, std::string(path));
  return catalog;
}

void Catalog::add_toml(std::string_view text, const std::string& path) {
  Language lang = build_language(parse_language_toml(text, path));
  // A construction's transformer is checked against the oracle directly.
  if (!lang.is_task() && lang.sources().size() < (lang.spec.construction ? 1u : 2u)) {
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
  if (!fs::is_directory(dir, ec)) throw InputError(fmt::format("--catalog {}: not a readable directory", dir));
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (entry.path().extension() == ".toml") files.push_back(entry.path());
  }
  if (ec) throw InputError(fmt::format("--catalog {}: {}", dir, ec.message()));
  std::sort(files.begin(), files.end());
  for (const fs::path& file : files) {
    std::ifstream in(file, std::ios::binary);
    std::stringstream buffer;
    buffer << in.rdbuf();
    if (!in) throw InputError(fmt::format("{}: cannot read the file", file.string()));
    add_toml(buffer.str(), file.string());
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
