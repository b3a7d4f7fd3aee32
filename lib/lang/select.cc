#include "lang/select.h"

#include "util/error.h"

namespace softhat::lang {

std::vector<Language> select_languages(const Catalog& catalog, const Selection& s) {
  const int ways = (!s.names.empty()) + s.all + s.formula.has_value();
  if (ways == 0) throw InputError("name a language, or give --all, or --formula F --alphabet A");
  if (ways > 1) throw InputError("give language names, --all or --formula, not several of them");
  if (s.alphabet && !s.formula) throw InputError("--alphabet goes with --formula");
  if (s.regex && !s.formula) throw InputError("--regex goes with --formula");
  std::vector<Language> out;
  if (s.formula) {
    if (!s.alphabet) throw InputError("--formula needs --alphabet (e.g. --alphabet ab)");
    LanguageSpec spec;
    spec.name = "command-line";
    spec.alphabet = *s.alphabet;
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
