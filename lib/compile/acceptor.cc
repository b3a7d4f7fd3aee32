#include "compile/acceptor.h"

#include <fmt/format.h>

#include "compile/dyck.h"
#include "compile/khop.h"
#include "util/error.h"

namespace softhat::compile {

bool has_acceptor(const lang::Language& language) {
  return language.formula.has_value() || language.spec.construction.has_value() || language.is_task();
}

Acceptor build_acceptor(const lang::Language& language, const CompileOptions& options) {
  if (language.formula) {
    return {compile_formula(*language.formula, language.alphabet(), options).model, "formula"};
  }
  if (language.is_task()) {
    return {build_khop(language.alphabet(), language.spec.task->hops), "construction khop"};
  }
  if (language.spec.construction && *language.spec.construction == "dyck") {
    return {build_dyck(language.alphabet()), "construction dyck"};
  }
  throw InputError(fmt::format("language '{}' has no formula and no construction to build a transformer from",
                               language.name()));
}

}  // namespace softhat::compile
