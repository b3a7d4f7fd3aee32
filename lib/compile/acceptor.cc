#include "compile/acceptor.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "compile/dyck.h"
#include "compile/khop.h"
#include "util/error.h"

namespace softhat::compile {

bool has_acceptor(const lang::Language& language) {
  return language.formula.has_value() || language.spec.construction.has_value() || language.is_task();
}

std::optional<double> proven_beta(const lang::Language& language, const CompileOptions& options, std::int64_t n) {
  const double m = static_cast<double>(n + 1);
  if (language.is_task()) return std::log(5.0) * m;
  if (!language.formula) return std::nullopt;
  const Plan plan = plan_formula(*language.formula, language.alphabet(), options.pe, options.c);
  bool temporal = false, sign = false;
  for (const PlannedLayer& layer : plan.layers) {
    for (const PlannedHead& h : layer.heads) {
      temporal = temporal || h.kind == HeadKind::kSince || h.kind == HeadKind::kUntil;
      sign = sign || h.kind == HeadKind::kSign;
    }
  }
  double beta = 0;
  if (temporal) beta = std::log(5.0) * (plan.pe == PeMode::kBounded ? m : 1.0);
  if (sign) {
    beta = std::max(beta, 4 * std::log(3.0));
    if (n >= 1) beta = std::max(beta, 2 * m * std::log(3.0 * static_cast<double>(n)));
  }
  return beta;
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
