#include "cli/select.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <memory>

#include "logic/parse.h"
#include "task/khop.h"
#include "util/error.h"
#include "util/read_file.h"

namespace softhat::cli {

using lang::build_language;
using lang::Catalog;
using lang::Language;
using lang::LanguageSpec;
using lang::TaskSpec;
using lang::read_text_file;

std::vector<std::string> att_files(const std::vector<std::string>& paths) {
  namespace fs = std::filesystem;
  std::vector<std::string> out;
  for (const std::string& p : paths) {
    std::error_code ec;
    if (fs::is_directory(p, ec)) {
      std::vector<fs::path> files;
      for (const auto& entry : fs::directory_iterator(p, ec)) {
        if (entry.path().extension() == ".att") files.push_back(entry.path());
      }
      if (ec) throw InputError(fmt::format("--att {}: {}", p, ec.message()));
      if (files.empty()) throw InputError(fmt::format("--att {}: the folder has no *.att files", p));
      std::sort(files.begin(), files.end(),
                [](const fs::path& a, const fs::path& b) { return a.filename() < b.filename(); });
      for (const fs::path& f : files) out.push_back(f.string());
    } else if (fs::exists(p, ec)) {
      out.push_back(p);
    } else {
      throw InputError(fmt::format("--att {}: no such file or folder", p));
    }
  }
  return out;
}

namespace {
// --alphabet's symbols (UTF-8) as symbol codes, declaring new ones;
// `context` starts the message of a bad one.
std::string declared_alphabet(const std::string& alphabet, const std::string& context) {
  try {
    return logic::declare_alphabet(alphabet);
  } catch (const std::invalid_argument& e) {
    throw InputError(fmt::format("{}: {}", context, e.what()));
  } catch (const InputError& e) {
    throw InputError(fmt::format("{}: {}", context, e.what()));
  }
}
}  // namespace

void check_selection(const Selection& s) {
  const bool regex_alone = s.regex && !s.formula;
  const int ways = (!s.names.empty()) + s.all + s.formula.has_value() + s.task.has_value() + !s.att.empty() +
                   regex_alone;
  if (ways == 0) {
    throw InputError("name a language, or give --all, --formula F --alphabet A, --regex R --alphabet A, --att FILE, "
                     "or --task khop --hops K");
  }
  if (ways > 1) throw InputError("give language names, --all, --formula, --regex, --att or --task, not several of them");
  if (s.alphabet && !s.formula && !s.task && s.att.empty() && !regex_alone) {
    throw InputError("--alphabet goes with --formula, --regex, --att or --task");
  }
  if ((s.hops || s.alphabet_size) && !s.task) throw InputError("--hops and --alphabet-size go with --task");
}

std::string att_language_name(const std::string& file) {
  std::string name = std::filesystem::path(file).filename().string();
  if (name.size() > 4 && name.substr(name.size() - 4) == ".att") name.resize(name.size() - 4);
  return name;
}

Language att_language(const std::string& file, const std::string& alphabet, std::size_t max_states) {
  std::string text;
  try {
    text = read_text_file(file);
  } catch (const util::ReadError& e) {
    throw InputError(fmt::format("--att {}: cannot read the file: {}", file, e.reason()));
  }
  LanguageSpec spec;
  spec.name = att_language_name(file);
  spec.alphabet = alphabet;
  spec.automaton = std::move(text);
  spec.automaton_file = file;
  spec.source = file;
  return build_language(std::move(spec), max_states);
}

std::vector<PendingLanguage> select_pending(const Catalog& catalog, const Selection& s, std::size_t max_states) {
  check_selection(s);
  std::vector<PendingLanguage> out;
  if (!s.att.empty()) {
    const std::string alphabet = s.alphabet ? declared_alphabet(*s.alphabet, "--alphabet") : "";
    for (const std::string& file : att_files(s.att)) {
      out.push_back({att_language_name(file), [file, alphabet, max_states] { return att_language(file, alphabet, max_states); }});
    }
    return out;
  }
  for (Language& language : select_languages(catalog, s, max_states)) {
    // Built already (a Language is move-only): the one call of `build` hands it over.
    auto built = std::make_shared<Language>(std::move(language));
    out.push_back({built->name(), [built] { return std::move(*built); }});
  }
  return out;
}

std::vector<Language> select_languages(const Catalog& catalog, const Selection& s, std::size_t max_states) {
  check_selection(s);
  std::vector<Language> out;
  const bool regex_alone = s.regex && !s.formula;
  if (s.task) {
    if (!s.hops) throw InputError("--task needs --hops K");
    if (s.alphabet && s.alphabet_size) throw InputError("give --alphabet or --alphabet-size, not both");
    LanguageSpec spec;
    spec.name = fmt::format("{}-{}", *s.task, *s.hops);
    spec.alphabet = s.alphabet ? declared_alphabet(*s.alphabet, fmt::format("command line: task '{}'", spec.name))
                               : task::letters(s.alphabet_size.value_or(4));
    spec.task = TaskSpec{*s.task, *s.hops};
    spec.language_class = "transduction";
    spec.source = "command line";
    out.push_back(build_language(std::move(spec), max_states));
    return out;
  }
  if (!s.att.empty()) {
    // One language per file, named after it; the alphabet is --alphabet or the arcs' symbols.
    const std::string alphabet = s.alphabet ? declared_alphabet(*s.alphabet, "--alphabet") : "";
    for (const std::string& file : att_files(s.att)) out.push_back(att_language(file, alphabet, max_states));
    return out;
  }
  if (regex_alone) {
    if (!s.alphabet) throw InputError("--regex alone needs --alphabet (e.g. --regex 'a*(ba+)*b?' --alphabet ab)");
    LanguageSpec spec;
    spec.name = "command-line";
    spec.alphabet = declared_alphabet(*s.alphabet, "command line: language 'command-line'");
    spec.regex = s.regex;
    spec.source = "command line";
    out.push_back(build_language(std::move(spec), max_states));
    return out;
  }
  if (s.formula) {
    if (!s.alphabet) throw InputError("--formula needs --alphabet (e.g. --alphabet ab)");
    LanguageSpec spec;
    spec.name = "command-line";
    spec.alphabet = declared_alphabet(*s.alphabet, "command line: language 'command-line'");
    spec.formula = s.formula;
    spec.regex = s.regex;
    spec.source = "command line";
    out.push_back(build_language(std::move(spec), max_states));
    return out;
  }
  if (s.all) {
    for (const Language& lang : catalog.languages()) out.push_back(build_language(lang.spec, max_states));
    return out;
  }
  for (const std::string& name : s.names) out.push_back(build_language(catalog.find(name).spec, max_states));
  return out;
}

}  // namespace softhat::cli
