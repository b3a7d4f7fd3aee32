#include "compile/compiler.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cctype>
#include <cmath>
#include <stdexcept>

namespace softhat::compile {

Compiled compile_formula(logic::Formula formula, const std::string& alphabet, const CompileOptions& options) {
  if (!(options.c > 0) || !std::isfinite(options.c)) throw InputError("the constant c must be positive");
  Compiled out{plan_formula(formula, alphabet, options.pe, options.c, options.names, options.exclusive), {}};
  out.model = plan_to_model(out.plan, options.max_memory);
  return out;
}

namespace {

using model::Mask;

const char* head_kind_name(HeadKind k) {
  switch (k) {
    case HeadKind::kSince: return "since";
    case HeadKind::kUntil: return "until";
    case HeadKind::kCount: return "count";
    case HeadKind::kSign: return "sign";
  }
  throw std::logic_error("plan_to_model: unknown head kind");
}

// The configuration of one model head: the widths, mask and hard kind of its
// planned heads' kind, one value column each, and their labels.
model::HeadConfig head_config(HeadKind kind, int values, const std::vector<std::string>& labels) {
  const std::string label = fmt::format("{} {}", head_kind_name(kind), fmt::join(labels, "; "));
  switch (kind) {
    case HeadKind::kSince: return {3, values, Mask::kStrictFuture, model::HardKind::kRightmost, label};
    case HeadKind::kUntil: return {3, values, Mask::kStrictPast, model::HardKind::kLeftmost, label};
    case HeadKind::kCount: return {1, values, Mask::kFuture, model::HardKind::kAverage, label};
    case HeadKind::kSign: return {1, values, Mask::kFuture, model::HardKind::kAverage, label};
  }
  throw std::logic_error("plan_to_model: unknown head kind");
}

// The model's configuration: residual coordinates, position features and the
// beta schedule of the PE mode, each layer's heads and FFN width, the readout.
model::ModelConfig model_config(const Plan& plan) {
  model::ModelConfig cfg;
  cfg.alphabet = plan.alphabet;
  cfg.d_model = static_cast<int>(plan.coords.size());
  cfg.residual_labels = plan.coords;
  cfg.position_features.push_back(model::parse_position_feature("one"));
  if (plan.pe == PeMode::kBounded) {
    cfg.position_features.push_back(model::parse_position_feature("j/(n+1)"));
    // Scores are multiples of delta = 1/(n+1): beta = c (n+1) makes beta*delta = c.
    cfg.beta = {plan.c, 1.0, 0.0};
  } else {
    cfg.position_features.push_back(model::parse_position_feature("j"));
    cfg.position_features.push_back(model::parse_position_feature("n"));
    // Scores are integers (delta = 1): a fixed beta = c.
    cfg.beta = {plan.c, 0.0, 0.0};
  }
  for (const auto& [m, first] : plan.mod_features) {
    cfg.position_features.push_back(model::PositionFeature{model::PositionFeature::Kind::kModOneHot, m});
  }
  if (plan.counting) {
    // Comparison heads (see kSign below) need beta(n) >= 2 (n+1) ln(3n) in
    // both PE modes; 4 (n+1) ln(n+1) is at least that for every n >= 1
    // ((n+1)^2 >= 3n), and it also gives since/until heads beta*delta =
    // 4 ln(n+1) >= 4 ln 2 > ln 13, so one schedule serves every head (the
    // planner lets one FFN read up to 3 since/until outputs under it: plan.h).
    cfg.beta = {4.0, 1.0, 1.0};
  }
  for (std::size_t l = 0; l < plan.layers.size(); ++l) {
    model::LayerConfig lc;
    lc.label = fmt::format("layer {}", l);
    for (const GlueOp& op : plan.layers[l].ffn) lc.ffn_hidden += op.units();
    // One model head per group of planned heads sharing their attention (plan.h).
    const PlannedLayer& pl = plan.layers[l];
    std::vector<std::vector<std::string>> labels(pl.model_heads());
    std::vector<HeadKind> kinds(pl.model_heads());
    for (const PlannedHead& h : pl.heads) {
      labels[h.group].push_back(h.label);  // in slot order: a group's slots are added in order
      kinds[h.group] = h.kind;
    }
    for (std::size_t g = 0; g < labels.size(); ++g) {
      lc.heads.push_back(head_config(kinds[g], static_cast<int>(labels[g].size()), labels[g]));
    }
    cfg.layers.push_back(std::move(lc));
  }
  cfg.readout = {plan.output, 0.5};
  cfg.notes["formula"] = plan.formula;
  cfg.notes["pe"] = pe_name(plan.pe);
  cfg.notes["construction"] = "softhat since/until heads with BOS default, rounding FFNs (docs/compiler.md)";
  return cfg;
}

// Token rows set the BOS or symbol coordinate; each position feature is
// copied into its own coordinate.
void embed_tokens(const Plan& plan, model::Transformer& t) {
  t.embed(0, plan.bos) = 1;
  for (std::size_t k = 0; k < plan.alphabet.size(); ++k) t.embed(k + 1, plan.tokens.at(plan.alphabet[k])) = 1;
  int col = 0;
  t.pos_proj(plan.one, col++) = 1;
  if (plan.pe == PeMode::kBounded) {
    t.pos_proj(plan.pos_fraction, col++) = 1;
  } else {
    t.pos_proj(plan.pos_index, col++) = 1;
    t.pos_proj(plan.pos_length, col++) = 1;
  }
  for (const auto& [m, first] : plan.mod_features) {
    for (int r = 0; r < m; ++r) t.pos_proj(first + r, col++) = 1;
  }
}

void put(model::Matrix& w, int row, const LinearForm& f) {
  for (const auto& [coord, coef] : f.terms) w(row, coord) += coef;
}

// One head's query, key, value and output weights.
// A head that shares its model head with earlier ones (same attention)
// writes only its value column; the first writes the query and key.
void write_head(const Plan& plan, const PlannedHead& head, model::HeadWeights& w, bool first) {
  w.o(head.raw, head.slot) = 1;
  put(w.v, head.slot, head.value);
  if (!first) return;
  if (head.kind == HeadKind::kCount) {
    // Uniform attention (q = k = 0) over j <= i with BOS: i+1 keys, so the
    // output is exactly #phi(i)/(i+1) (value phi at real positions, 0 at BOS).
    return;
  }
  if (head.kind == HeadKind::kSign) {
    // Score E(i) at the i real positions, 0 at BOS; value bos. Output
    // o = 1 / (1 + i e^{beta E}). E is a multiple of 1/(2(i+1)) that is
    // never 0, so |E| >= 1/(2(i+1)); with beta >= 2(n+1) ln(3n):
    // E > 0 gives i e^{beta E} >= 3, o <= 1/4; E < 0 gives i e^{beta E}
    // <= 1/3, o >= 3/4. The rounding then gives [E > 0] = 1 - rho(o) exactly.
    put(w.q, 0, head.query);
    w.k(0, plan.one) = 1;
    w.k(0, plan.bos) = -1;
    return;
  }
  // Key: [stop, position term, bos]; the query weighs them. Writing
  // delta for the unit (1/(n+1) bounded, 1 unbounded), all visible
  // scores are distinct multiples of delta, and BOS sits strictly
  // between the stops and the others:
  //  bounded since  q=[1,1,1]      s = stop + j/(n+1) + bos:  stops in (1,2), BOS 1, others in (0,1)
  //  bounded until  q=[2,1,1]      s = 2 stop - j/(n+1) + bos: stops in (1,2) decreasing in j, BOS 1, others < 0
  //  unbounded since q=[n+1,1,n+1] s = (n+1)(stop + bos) + j: stops >= n+2, BOS n+1, others <= n-1
  //  unbounded until q=[n+1,1,0]   s = (n+1) stop - j:         stops >= 1 decreasing in j, BOS 0, others <= -1
  // so the maximum is the nearest stop (rightmost j < i, leftmost j > i)
  // or BOS, and the geometric bound gives leak <= sum_d e^{-c d} = 1/(e^c - 1).
  put(w.k, 0, head.stop);
  w.k(2, plan.bos) = 1;
  if (plan.pe == PeMode::kBounded) {
    w.k(1, plan.pos_fraction) = head.since() ? 1 : -1;
    w.q(0, plan.one) = head.since() ? 1 : 2;
    w.q(1, plan.one) = 1;
    w.q(2, plan.one) = 1;
  } else {
    w.k(1, plan.pos_index) = head.since() ? 1 : -1;
    w.q(0, plan.pos_length) = 1;
    w.q(0, plan.one) = 1;
    w.q(1, plan.one) = 1;
    if (head.since()) {
      w.q(2, plan.pos_length) = 1;
      w.q(2, plan.one) = 1;
    }
  }
}

// One layer's FFN: one or two ReLU units per glue operation, exact on 0/1
// inputs; a threshold that reads raw head outputs rounds (rho maps [0, 1/4]
// to 0 and [3/4, 1] to 1 exactly, and the plan keeps those outputs' summed
// deviation within 1/4: compile/plan.h).
void write_glue(const Plan& plan, const PlannedLayer& pl, model::LayerWeights& lw) {
  int u = 0;
  const std::vector<int>* also = nullptr;  // the current op's extra targets (GlueOp::also)
  auto unit = [&](const std::vector<std::pair<int, int>>& in, double scale, double bias, int target, double out) {
    for (const auto& [coord, coef] : in) lw.fc1(u, coord) += scale * coef;
    lw.b1(u) = bias;
    lw.fc2(target, u) = out;
    for (int a : *also) lw.fc2(a, u) = out;
    ++u;
  };
  for (const GlueOp& op : pl.ffn) {
    also = &op.also;
    const auto& x = op.inputs;
    const double t0 = op.bias;  // t = sum w x + bias; the result is [t >= 1]
    switch (op.kind) {
      case GlueKind::kThreshold:
        switch (op.form) {
          case ThresholdForm::kRelu: unit(op.terms, 1, t0, op.target, 1); break;  // ReLU(t), t <= 1
          case ThresholdForm::kOneMinus:                                        // 1 - ReLU(1 - t), t >= 0
            unit(op.terms, -1, 1 - t0, op.target, -1);
            lw.b2(op.target) += 1;
            for (int a : op.also) lw.b2(a) += 1;
            break;
          case ThresholdForm::kClamp:  // ReLU(t) - ReLU(t - 1)
            unit(op.terms, 1, t0, op.target, 1);
            unit(op.terms, 1, t0 - 1, op.target, -1);
            break;
          case ThresholdForm::kRho: {  // rho(t) = ReLU(2t - 1/2) - ReLU(2t - 3/2)
            // Exactly 0 or 1 in floating point too: both units sum the same
            // s = 2 sum w x (+ 2 t0 * one when t0 > 0) in the same order and
            // add a bias <= 0 last (the engine's order, forward.cc), so where
            // they are active (s >= their results >= 0) both sums are exact
            // and their difference is exactly 1; where t <= 1/4 neither is.
            std::vector<std::pair<int, int>> in = op.terms;
            double b = 2 * t0;
            if (t0 > 0) {
              in.emplace_back(plan.one, t0);
              b = 0;
            }
            unit(in, 2, b - 0.5, op.target, 1);
            unit(in, 2, b - 1.5, op.target, -1);
            break;
          }
        }
        break;
      case GlueKind::kIff:  // 1 - ReLU(x - y) - ReLU(y - x)
        unit({{x[0], 1}, {x[1], -1}}, 1, 0, op.target, -1);
        unit({{x[0], -1}, {x[1], 1}}, 1, 0, op.target, -1);
        lw.b2(op.target) += 1;
        break;
      case GlueKind::kSignRound:  // 1 - rho(o) + bos * known (the point-0 value)
        unit({{x[0], 2}}, 1, -0.5, op.target, -1);
        unit({{x[0], 2}}, 1, -1.5, op.target, 1);
        unit({{plan.bos, 1}}, 1, 0, op.target, x[1]);
        lw.b2(op.target) += 1;
        break;
    }
  }
}

}  // namespace

model::Transformer plan_to_model(const Plan& plan, std::size_t max_memory) {
  // A short formula can ask for a large model: mod(m, r) takes m residual
  // coordinates and m position features, so the position projection alone
  // holds about m^2 weights (a 64-byte formula once asked for 92 GiB).
  const model::ModelConfig config = model_config(plan);
  model::Transformer::check_memory(config, max_memory, "the compiled model");
  model::Transformer t = model::Transformer::zeros(config);
  embed_tokens(plan, t);
  for (std::size_t l = 0; l < plan.layers.size(); ++l) {
    const PlannedLayer& pl = plan.layers[l];
    std::vector<bool> written(pl.model_heads(), false);
    for (const PlannedHead& h : pl.heads) {
      write_head(plan, h, t.layers[l].heads[h.group], !written[h.group]);
      written[h.group] = true;
    }
    write_glue(plan, pl, t.layers[l]);
  }
  return t;
}

model::BetaSchedule parse_beta(const std::string& expr) {
  model::BetaSchedule b{1, 0, 0};
  std::size_t i = 0;
  auto fail = [&](const std::string& what) -> void {
    throw InputError(fmt::format("'{}': {} at {} (forms: 2, 3*(n+1), 0.5*(n+1)^2*ln(n+1))", expr, what, i));
  };
  auto skip = [&] {
    while (i < expr.size() && std::isspace(static_cast<unsigned char>(expr[i]))) ++i;
  };
  auto number = [&]() -> double {
    skip();
    std::size_t used = 0;
    double v = 0;
    try {
      v = std::stod(expr.substr(i), &used);
    } catch (const std::exception&) {
      fail("expected a number");
    }
    i += used;
    return v;
  };
  auto power = [&]() -> double {
    skip();
    if (i < expr.size() && expr[i] == '^') {
      ++i;
      return number();
    }
    return 1;
  };
  bool first = true;
  while (true) {
    skip();
    if (i >= expr.size()) {
      if (first) fail("empty expression");
      break;
    }
    if (!first) {
      if (expr[i] != '*') fail("expected '*'");
      ++i;
      skip();
    }
    first = false;
    if (expr.compare(i, 5, "(n+1)") == 0) {
      i += 5;
      b.a += power();
    } else if (expr.compare(i, 7, "ln(n+1)") == 0) {
      i += 7;
      b.b += power();
    } else {
      b.c *= number();
    }
  }
  if (!(b.c > 0) || !std::isfinite(b.c) || !std::isfinite(b.a) || !std::isfinite(b.b)) {
    fail("the constant must be positive and finite");
  }
  return b;
}

}  // namespace softhat::compile
