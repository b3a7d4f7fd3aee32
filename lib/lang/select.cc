#include "lang/select.h"

#include <fmt/format.h>

#include "logic/parse.h"
#include "task/khop.h"
#include "util/error.h"

namespace softhat::lang {

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

std::vector<Language> select_languages(const Catalog& catalog, const Selection& s) {
  std::vector<Language> out;
  const int ways = (!s.names.empty()) + s.all + s.formula.has_value() + s.task.has_value();
  if (ways == 0) throw InputError("name a language, or give --all, or --formula F --alphabet A, or --task khop --hops K");
  if (ways > 1) throw InputError("give language names, --all, --formula or --task, not several of them");
  if (s.alphabet && !s.formula && !s.task) throw InputError("--alphabet goes with --formula or --task");
  if ((s.hops || s.alphabet_size) && !s.task) throw InputError("--hops and --alphabet-size go with --task");
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
    out.push_back(build_language(std::move(spec)));
    return out;
  }
  if (s.regex && !s.formula) throw InputError("--regex goes with --formula");
  if (s.formula) {
    if (!s.alphabet) throw InputError("--formula needs --alphabet (e.g. --alphabet ab)");
    LanguageSpec spec;
    spec.name = "command-line";
    spec.alphabet = declared_alphabet(*s.alphabet, "command line: language 'command-line'");
    spec.formula = s.formula;
    spec.regex = s.regex;
    spec.source = "command line";
    out.push_back(build_language(std::move(spec)));
    return out;
  }
  if (s.all) {
    for (const Language& lang : catalog.languages()) out.push_back(build_language(lang.spec));
    return out;
  }
  for (const std::string& name : s.names) out.push_back(build_language(catalog.find(name).spec));
  return out;
}

}  // namespace softhat::lang
