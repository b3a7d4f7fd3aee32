#include "compile/acceptor.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "cascade/derive.h"
#include "compile/dyck.h"
#include "compile/khop.h"
#include "util/error.h"

namespace softhat::compile {

bool has_acceptor(const lang::Language& language) {
  return language.formula.has_value() || language.spec.construction.has_value() || language.is_task() ||
         defined_by_automaton(language);
}

bool defined_by_automaton(const lang::Language& language) {
  return !language.formula && !language.spec.construction && !language.is_task() &&
         (language.regex.has_value() || language.automaton.has_value());
}

cascade::Derived derive_language_formula(const lang::Language& language) {
  std::optional<automata::Dfa> dfa = lang::regular_dfa(language);
  if (!dfa) throw InputError(fmt::format("language '{}' has no automaton to derive a formula from", language.name()));
  try {
    return cascade::derive_formula(*dfa, cascade::Limits{.max_states = language.max_states});
  } catch (const cascade::NotStarFree& e) {
    throw cascade::NotStarFree(fmt::format("language '{}': {}; no transformer of this kind recognizes it",
                                           language.name(), e.what()),
                               e.witness);
  }
}

CompileOptions derived_options(CompileOptions options, const cascade::Derived& derived) {
  options.names = &derived.names;
  options.exclusive = &derived.exclusive;
  return options;
}

std::optional<double> proven_beta(const lang::Language& language, const CompileOptions& options, std::int64_t n) {
  const double m = static_cast<double>(n + 1);
  if (language.is_task()) return std::log(5.0) * m;
  std::optional<cascade::Derived> derived;
  if (defined_by_automaton(language)) derived = derive_language_formula(language);
  if (!language.formula && !derived) return std::nullopt;
  const Plan plan = derived ? plan_formula(derived->formula, language.alphabet(), options.pe, options.c, &derived->names,
                                           &derived->exclusive)
                            : plan_formula(*language.formula, language.alphabet(), options.pe, options.c);
  bool temporal = false, sign = false;
  for (const PlannedLayer& layer : plan.layers) {
    for (const PlannedHead& h : layer.heads) {
      temporal = temporal || h.kind == HeadKind::kSince || h.kind == HeadKind::kUntil;
      sign = sign || h.kind == HeadKind::kSign;
    }
  }
  double beta = 0;
  // m raw since/until outputs read by one rounding threshold: their leaks,
  // each at most 1/(e^{beta delta} - 1), must add up to at most 1/4.
  const double raw = std::max(1, plan.max_raw_inputs());
  if (temporal) beta = std::log(4 * raw + 1) * (plan.pe == PeMode::kBounded ? m : 1.0);
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
  if (defined_by_automaton(language)) {
    const cascade::Derived derived = derive_language_formula(language);
    return {compile_formula(derived.formula, language.alphabet(), derived_options(options, derived)).model,
            fmt::format("{} ({} route, proved equal to its minimal DFA)", language.regex ? "regex" : "automaton",
                        derived.route)};
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
