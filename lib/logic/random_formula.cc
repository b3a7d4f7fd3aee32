#include "logic/random_formula.h"

#include <vector>

#include "util/random.h"

namespace softhat::logic {
namespace {

Formula leaf(std::mt19937_64& rng, const RandomFormulaOptions& o) {
  const std::uint64_t pick = uniform_int(rng, 0, 19);
  if (pick < 14) return letter(o.alphabet[uniform_int(rng, 0, o.alphabet.size() - 1)]);
  if (pick == 14) return make_true();
  if (pick == 15) return make_false();
  if (pick == 16 && o.past) return first();
  if (pick == 17 && o.future) return last();
  if (pick >= 18 && o.modular) {
    const std::int64_t m = static_cast<std::int64_t>(uniform_int(rng, 2, 3));
    return mod(m, static_cast<std::int64_t>(uniform_int(rng, 0, static_cast<std::uint64_t>(m - 1))));
  }
  return letter(o.alphabet[uniform_int(rng, 0, o.alphabet.size() - 1)]);
}

Formula build(std::mt19937_64& rng, const RandomFormulaOptions& o, int depth);

Term random_term(std::mt19937_64& rng, const RandomFormulaOptions& o, int depth) {
  Term t;
  const std::uint64_t counts = uniform_int(rng, 0, 2);
  for (std::uint64_t k = 0; k < counts; ++k) {
    const std::int64_t coef = static_cast<std::int64_t>(uniform_int(rng, 1, 2)) * (uniform_int(rng, 0, 3) ? 1 : -1);
    t.counts.emplace_back(coef, build(rng, o, depth - 1));
  }
  t.constant = static_cast<std::int64_t>(uniform_int(rng, 0, 3));
  return t;
}

Formula build(std::mt19937_64& rng, const RandomFormulaOptions& o, int depth) {
  if (depth <= 0 || uniform_int(rng, 0, 5) == 0) return leaf(rng, o);
  enum Kind { kNot, kAnd, kOr, kImpl, kIff, kY, kO, kH, kS, kX, kF, kG, kU, kCount };
  std::vector<Kind> kinds = {kNot, kAnd, kOr, kImpl, kIff};
  if (o.past) kinds.insert(kinds.end(), {kY, kO, kH, kS, kS});
  if (o.future) kinds.insert(kinds.end(), {kX, kF, kG, kU, kU});
  if (o.counting) kinds.insert(kinds.end(), {kCount, kCount});
  const Kind kind = kinds[uniform_int(rng, 0, kinds.size() - 1)];
  auto sub = [&] { return build(rng, o, depth - 1); };
  switch (kind) {
    case kNot: return not_(sub());
    case kAnd: { Formula a = sub(); return and_(a, sub()); }
    case kOr: { Formula a = sub(); return or_(a, sub()); }
    case kImpl: { Formula a = sub(); return implies(a, sub()); }
    case kIff: { Formula a = sub(); return iff(a, sub()); }
    case kY: return yesterday(sub());
    case kO: return once(sub());
    case kH: return historically(sub());
    case kS: { Formula a = sub(); return since(a, sub()); }
    case kX: return next(sub());
    case kF: return eventually(sub());
    case kG: return globally(sub());
    case kU: { Formula a = sub(); return until(a, sub()); }
    case kCount: {
      Term lhs = random_term(rng, o, depth);
      Term rhs = random_term(rng, o, depth);
      return compare(std::move(lhs), static_cast<Cmp>(uniform_int(rng, 0, 5)), std::move(rhs));
    }
  }
  return leaf(rng, o);
}

}  // namespace

Formula random_formula(std::mt19937_64& rng, const RandomFormulaOptions& options) {
  return build(rng, options, options.max_depth);
}

}  // namespace softhat::logic
