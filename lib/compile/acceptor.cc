#include "compile/acceptor.h"

#include <fmt/format.h>

#include "util/error.h"

namespace softhat::compile {

bool has_acceptor(const lang::Language& language) { return language.formula.has_value(); }

Acceptor build_acceptor(const lang::Language& language, const CompileOptions& options) {
  if (language.formula) {
    return {compile_formula(*language.formula, language.alphabet(), options).model, "formula"};
  }
  throw InputError(fmt::format("language '{}' has no formula and no construction to build a transformer from",
                               language.name()));
}

}  // namespace softhat::compile
