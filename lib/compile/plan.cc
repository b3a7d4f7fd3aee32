#include "compile/plan.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <set>
#include <cmath>
#include <functional>
#include <optional>
#include <unordered_map>

#include "logic/print.h"
#include "util/symbols.h"

namespace softhat::compile {

constexpr std::int64_t kMaxModFeatures = 1'000'000;

const char* pe_name(PeMode pe) { return pe == PeMode::kBounded ? "bounded" : "unbounded"; }

PeMode parse_pe(const std::string& name) {
  if (name == "bounded") return PeMode::kBounded;
  if (name == "unbounded") return PeMode::kUnbounded;
  throw InputError(fmt::format("unknown position-embedding mode '{}' (known: bounded, unbounded)", name));
}

std::string LinearForm::describe(const std::vector<std::string>& coords) const {
  if (terms.empty()) return "0";
  std::string out;
  for (const auto& [coord, coef] : terms) {
    if (!out.empty()) out += coef < 0 ? " - " : " + ";
    else if (coef < 0) out += "-";
    const double mag = std::abs(coef);
    out += mag == 1 ? coords[coord] : fmt::format("{}*{}", mag, coords[coord]);
  }
  return out;
}

int GlueOp::units() const {
  switch (kind) {
    case GlueKind::kNot:
    case GlueKind::kAnd:
    case GlueKind::kOr:
    case GlueKind::kImplies:
    case GlueKind::kValue: return 1;
    case GlueKind::kIff:
    case GlueKind::kRound:
    case GlueKind::kStop: return 2;
    case GlueKind::kSignRound: return 3;
  }
  return 0;
}

int Plan::heads() const {
  int h = 0;
  for (const PlannedLayer& l : layers) h += static_cast<int>(l.heads.size());
  return h;
}

int Plan::ffn_units() const {
  int u = 0;
  for (const PlannedLayer& l : layers) {
    for (const GlueOp& op : l.ffn) u += op.units();
  }
  return u;
}

namespace {

const char* glue_name(GlueKind k) {
  switch (k) {
    case GlueKind::kNot: return "not";
    case GlueKind::kAnd: return "and";
    case GlueKind::kOr: return "or";
    case GlueKind::kImplies: return "implies";
    case GlueKind::kIff: return "iff";
    case GlueKind::kRound: return "round";
    case GlueKind::kStop: return "stop";
    case GlueKind::kValue: return "value";
    case GlueKind::kSignRound: return "sign";
  }
  return "?";
}

// A glue operation as the memo knows it: the same operation on the same
// inputs (in order) is computed once.
struct GlueKey {
  GlueKind kind;
  std::vector<int> inputs;
  bool operator==(const GlueKey&) const = default;
};

struct GlueKeyHash {
  std::size_t operator()(const GlueKey& k) const {
    std::size_t h = std::hash<int>{}(static_cast<int>(k.kind));
    for (int in : k.inputs) h ^= std::hash<int>{}(in) + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);  // boost's hash_combine
    return h;
  }
};

// Builds the plan bottom-up. Each coordinate records when it is ready:
// -1 for embeddings, L when written by layer L's FFN (a head's result is
// rounded in its own layer's FFN, so it is ready at that layer too).
class Builder {
 public:
  Builder(Plan& plan) : plan_(plan) {}

  int coord(std::string label, int ready, int bos_value = -1) {
    plan_.coords.push_back(std::move(label));
    ready_.push_back(ready);
    bos_value_.push_back(bos_value);
    return static_cast<int>(plan_.coords.size()) - 1;
  }

  PlannedLayer& layer(int l) {
    if (static_cast<int>(plan_.layers.size()) <= l) plan_.layers.resize(l + 1);
    return plan_.layers[l];
  }

  int ready(int c) const { return ready_[c]; }

  int zero() {
    if (plan_.zero < 0) plan_.zero = coord("false", -1, 0);
    return plan_.zero;
  }

  // A Boolean glue operation in the first FFN after its inputs are ready.
  int glue(GlueKind kind, std::vector<int> inputs, const std::string& label) {
    GlueKey key{kind, inputs};
    if (auto it = glue_memo_.find(key); it != glue_memo_.end()) return it->second;
    int l = 0;
    for (int in : inputs) l = std::max(l, ready_[in] + 1);
    const int target = coord(label, l, bos_value_of(kind, inputs));
    layer(l).ffn.push_back(GlueOp{kind, target, std::move(inputs)});
    glue_memo_.emplace(std::move(key), target);
    return target;
  }

  // A glue result's value at the BOS row, when every input's is known: the
  // BOS row computes every subformula at the contract's point 0 for the
  // empty word, and for any word its since/count/sign results are the same
  // there (those heads see only BOS at the BOS row); until results are not.
  int bos_value_of(GlueKind kind, const std::vector<int>& inputs) const {
    std::vector<int> v;
    for (int in : inputs) {
      if (bos_value_[in] < 0) return -1;
      v.push_back(bos_value_[in]);
    }
    switch (kind) {
      case GlueKind::kNot: return 1 - v[0];
      case GlueKind::kAnd: return std::all_of(v.begin(), v.end(), [](int x) { return x == 1; });
      case GlueKind::kOr: return std::any_of(v.begin(), v.end(), [](int x) { return x == 1; });
      case GlueKind::kImplies: return !v[0] || v[1];
      case GlueKind::kIff: return v[0] == v[1];
      default: return -1;
    }
  }

  // The value form: event at real positions, 0 at BOS. Affine whenever the
  // event's value at the BOS row is known (b): event - b * bos.
  std::optional<LinearForm> affine_value(int event) const {
    if (bos_value_[event] < 0) return std::nullopt;
    LinearForm f;
    f.terms.emplace_back(event, 1.0);
    if (bos_value_[event] == 1) f.terms.emplace_back(plan_.bos, -1.0);
    return f;
  }

  // The stop form: (not guard or event) at real positions, 0 at BOS. Affine
  // for constant operands and for two letters (distinct letters exclude each
  // other, so "not a or b" is "not a").
  std::optional<LinearForm> affine_stop(int guard, int event) const {
    const LinearForm always{{{plan_.one, 1.0}, {plan_.bos, -1.0}}};
    if (guard == plan_.zero || event == plan_.one) return always;
    if (guard == plan_.one) return affine_value(event);
    if (is_token(guard) && (is_token(event) || event == plan_.zero)) {
      if (guard == event) return always;
      return LinearForm{{{plan_.one, 1.0}, {guard, -1.0}, {plan_.bos, -1.0}}};
    }
    return std::nullopt;
  }

  int temporal(bool since, int guard, int event, const std::string& label) {
    const std::string key = fmt::format("{}:{},{}", since ? "S" : "U", guard, event);
    if (auto it = memo_.find(key); it != memo_.end()) return it->second;
    std::optional<LinearForm> stop = affine_stop(guard, event);
    std::optional<LinearForm> value = affine_value(event);
    int l = std::max(ready_[guard], ready_[event]) + 1;  // the first layer whose attention may read them
    if (!stop || !value) {
      // Prepare the missing forms in the FFN of layer l; attend in layer l+1.
      if (!stop) {
        const int c = coord("stop:" + label, l);
        layer(l).ffn.push_back(GlueOp{GlueKind::kStop, c, {guard, event}});
        stop = LinearForm{{{c, 1.0}}};
      }
      if (!value) {
        const int c = coord("value:" + label, l);
        layer(l).ffn.push_back(GlueOp{GlueKind::kValue, c, {event}});
        value = LinearForm{{{c, 1.0}}};
      }
      ++l;
    }
    PlannedHead head{since ? HeadKind::kSince : HeadKind::kUntil, label, *stop, *value, {}};
    head.raw = coord("att:" + label, l);
    // At the BOS row a since head sees only BOS (value 0): its bit is 0.
    head.result = coord("sub:" + label, l, since ? 0 : -1);
    layer(l).heads.push_back(head);
    layer(l).ffn.push_back(GlueOp{GlueKind::kRound, head.result, {head.raw}});
    memo_[key] = head.result;
    return head.result;
  }

  // #phi / (i+1) by a uniform head over j <= i (BOS in the denominator).
  int count(int phi, const std::string& label) {
    const std::string key = fmt::format("#:{}", phi);
    if (auto it = memo_.find(key); it != memo_.end()) return it->second;
    std::optional<LinearForm> value = affine_value(phi);
    int l = ready_[phi] + 1;
    if (!value) {
      const int c = coord("value:#" + label, l);
      layer(l).ffn.push_back(GlueOp{GlueKind::kValue, c, {phi}});
      value = LinearForm{{{c, 1.0}}};
      ++l;
    }
    PlannedHead head{HeadKind::kCount, "#" + label, {}, *value, {}};
    head.raw = coord("frac:#" + label, l);
    layer(l).heads.push_back(head);
    memo_[key] = head.raw;
    return head.raw;
  }

  int frac_one() {
    if (plan_.frac_one < 0) {
      PlannedHead head{HeadKind::kCount, "#bos", {}, LinearForm{{{plan_.bos, 1.0}}}, {}};
      head.raw = plan_.frac_one = coord("frac:1", 0);
      layer(0).heads.push_back(head);
    }
    return plan_.frac_one;
  }

  // [E > 0] where E (a linear form in count fractions) is a nonzero multiple
  // of 1/(2(i+1)); `known` is the value at BOS (the contract's point 0).
  int positive(const LinearForm& e, bool known, const std::string& label) {
    std::string key = "sign:";
    for (const auto& [c, w] : e.terms) key += fmt::format("{}*{},", w, c);
    key += known ? "1" : "0";
    if (auto it = memo_.find(key); it != memo_.end()) return it->second;
    int l = 0;
    for (const auto& [c, w] : e.terms) l = std::max(l, ready_[c] + 1);
    PlannedHead head{HeadKind::kSign, label, {}, LinearForm{{{plan_.bos, 1.0}}}, e};
    head.raw = coord("att:" + label, l);
    head.result = coord("sub:" + label, l, known ? 1 : 0);  // the compile-time value at point 0
    layer(l).heads.push_back(head);
    layer(l).ffn.push_back(GlueOp{GlueKind::kSignRound, head.result, {head.raw, known ? 1 : 0}});
    memo_[key] = head.result;
    return head.result;
  }

  bool is_token(int c) const {
    for (const auto& [sym, t] : plan_.tokens) {
      if (t == c) return true;
    }
    return false;
  }

  std::unordered_map<logic::Formula, int> done;

 private:
  Plan& plan_;
  std::vector<int> ready_;
  std::vector<int> bos_value_;  // the 0/1 value at the BOS row when it is the same for every word, else -1
  std::unordered_map<std::string, int> memo_;  // heads: since/until, count, sign
  std::unordered_map<GlueKey, int, GlueKeyHash> glue_memo_;
};

// How a subformula is written in labels: in full, or, for a formula DAG with
// named shared subformulas (automata, cascade/derive.h), by its name, with
// named parts abbreviated.
std::string text_of(logic::Formula f, const logic::Names* names) {
  if (!names) return logic::to_string(f);
  if (auto it = names->find(f); it != names->end()) return it->second;
  return logic::to_string(f, *names);
}

}  // namespace

namespace {

using logic::Op;

// The input coordinates: one, BOS, a one-hot per symbol, the position
// features of the PE mode, and "j mod m" one-hots for each m the formula uses.
void add_input_coords(Plan& plan, Builder& b, logic::Formula root) {
  plan.one = b.coord("one", -1, 1);
  plan.bos = b.coord("bos", -1, 1);
  for (char s : plan.alphabet) plan.tokens[s] = b.coord("tok:" + sym::encode(s), -1, 0);  // labels are UTF-8
  if (plan.pe == PeMode::kBounded) {
    plan.pos_fraction = b.coord("pos:j/(n+1)", -1, 0);
  } else {
    plan.pos_index = b.coord("pos:j", -1, 0);
    plan.pos_length = b.coord("pos:n", -1, -1);
  }
  // mod(m, r): one-hot features "j mod m", added once per m; m coordinates
  // each, so their total is bounded before any is added (the DFA's period
  // bound: mod(10^9, r) would be a residual stream 10^9 wide).
  std::set<std::int64_t> moduli;
  for (logic::Formula f : logic::subformulas(root)) {
    if (f->op == logic::Op::kMod) moduli.insert(f->m);
  }
  std::int64_t features = 0;
  for (std::int64_t m : moduli) features += m;
  if (features > kMaxModFeatures) {
    throw LimitError(fmt::format("the mod predicates need {} one-hot position features (one per residue of each "
                                 "modulus), more than {}",
                                 features, kMaxModFeatures));
  }
  for (logic::Formula f : logic::subformulas(root)) {
    if (f->op != logic::Op::kMod) continue;
    const int m = static_cast<int>(f->m);
    if (std::any_of(plan.mod_features.begin(), plan.mod_features.end(), [&](auto& p) { return p.first == m; })) {
      continue;
    }
    int first = -1;
    for (int r = 0; r < m; ++r) {
      const int cc = b.coord(fmt::format("pos:j mod {}={}", m, r), -1, r == 0 ? 1 : 0);
      if (r == 0) first = cc;
    }
    plan.mod_features.emplace_back(m, first);
  }
}

// Plans every subformula once (b.done), children first: Boolean operators as
// glue, temporal operators as since/until heads, comparisons of counts as
// count and sign heads.
class FormulaPlanner {
 public:
  FormulaPlanner(Plan& plan, Builder& b, const logic::Names* names) : plan_(plan), b_(b), names_(names) {}

  // The coordinate holding f.
  int build(logic::Formula f) {
    if (auto it = b_.done.find(f); it != b_.done.end()) return it->second;
    Plan& plan = plan_;
    Builder& b = b_;
    const logic::Names* names = names_;
    const logic::Node& n = *f;
    const std::string label = text_of(f, names);
    auto kid = [&](int k) { return build(n.kids[k]); };
    auto negation = [&](logic::Formula g) { return b.glue(GlueKind::kNot, {build(g)}, sub_label(logic::not_(g))); };
    int out = -1;
    switch (n.op) {
      case Op::kTrue: out = plan.one; break;
      case Op::kFalse: out = b.zero(); break;
      case Op::kLetter: out = plan.tokens.at(n.letter); break;
      case Op::kMod:
        for (const auto& [m, first] : plan.mod_features) {
          if (m == n.m) out = first + static_cast<int>(n.r);
        }
        break;
      case Op::kNot: out = b.glue(GlueKind::kNot, {kid(0)}, "sub:" + label); break;
      case Op::kAnd:
      case Op::kOr: {
        std::vector<int> in;
        for (std::size_t k = 0; k < n.kids.size(); ++k) in.push_back(kid(static_cast<int>(k)));
        out = b.glue(n.op == Op::kAnd ? GlueKind::kAnd : GlueKind::kOr, in, "sub:" + label);
        break;
      }
      case Op::kImplies: out = b.glue(GlueKind::kImplies, {kid(0), kid(1)}, "sub:" + label); break;
      case Op::kIff: out = b.glue(GlueKind::kIff, {kid(0), kid(1)}, "sub:" + label); break;
      // Past: Y p = false S p, O p = true S p, H p = !O !p, first = !Y true.
      case Op::kYesterday: out = b.temporal(true, b.zero(), kid(0), label); break;
      case Op::kOnce: out = b.temporal(true, plan.one, kid(0), label); break;
      case Op::kSince: out = b.temporal(true, kid(0), kid(1), label); break;
      case Op::kHistorically: {
        const logic::Formula inner = logic::once(logic::not_(n.kids[0]));
        const int o = b.temporal(true, plan.one, negation(n.kids[0]), text_of(inner, names));
        out = b.glue(GlueKind::kNot, {o}, "sub:" + label);
        break;
      }
      case Op::kFirst: {
        const int y = b.temporal(true, b.zero(), plan.one, "Y true");
        out = b.glue(GlueKind::kNot, {y}, "sub:first");
        break;
      }
      // Future mirrors: X p = false U p, F p = true U p, G p = !F !p, last = !X true.
      case Op::kNext: out = b.temporal(false, b.zero(), kid(0), label); break;
      case Op::kEventually: out = b.temporal(false, plan.one, kid(0), label); break;
      case Op::kUntil: out = b.temporal(false, kid(0), kid(1), label); break;
      case Op::kGlobally: {
        const logic::Formula inner = logic::eventually(logic::not_(n.kids[0]));
        const int fo = b.temporal(false, plan.one, negation(n.kids[0]), text_of(inner, names));
        out = b.glue(GlueKind::kNot, {fo}, "sub:" + label);
        break;
      }
      case Op::kLast: {
        const int x = b.temporal(false, b.zero(), plan.one, "X true");
        out = b.glue(GlueKind::kNot, {x}, "sub:last");
        break;
      }
      case Op::kCompare: out = compare(n, label); break;
    }
    b.done[f] = out;
    return out;
  }

 private:
  std::string sub_label(logic::Formula f) const { return "sub:" + text_of(f, names_); }

  // lhs < rhs (and <=, >, >=, =, !=) on counts: the sign of D = rhs - lhs.
  int compare(const logic::Node& n, const std::string& label) {
    Builder& b = b_;
    const logic::Names* names = names_;
    // D = rhs - lhs as count fractions: sum c_k #phi_k / (i+1), constants via 1/(i+1).
    plan_.counting = true;
    LinearForm d;
    auto add_term = [&](const logic::Term& t, double sign) {
      for (const auto& [coef, g] : t.counts) {
        d.terms.emplace_back(b.count(build(g), text_of(g, names)), sign * static_cast<double>(coef));
      }
      if (t.constant != 0) d.terms.emplace_back(b.frac_one(), sign * static_cast<double>(t.constant));
    };
    add_term(n.rhs, 1.0);
    add_term(n.lhs, -1.0);
    const std::int64_t d0 = n.rhs.constant - n.lhs.constant;  // D at point 0 (every count is 0)
    auto test = [&](double sign, double half, bool known, const std::string& what) {
      LinearForm e;
      for (const auto& [coord, weight] : d.terms) e.terms.emplace_back(coord, sign * weight);
      e.terms.emplace_back(b.frac_one(), half);
      return b.positive(e, known, what);
    };
    using logic::Cmp;
    switch (n.cmp) {
      case Cmp::kLt: return test(1, -0.5, d0 >= 1, label);
      case Cmp::kLe: return test(1, 0.5, d0 >= 0, label);
      case Cmp::kGt: return test(-1, -0.5, d0 <= -1, label);
      case Cmp::kGe: return test(-1, 0.5, d0 <= 0, label);
      case Cmp::kEq:
      case Cmp::kNe: {
        const int le = test(1, 0.5, d0 >= 0, label + " (D >= 0)");
        const int ge = test(-1, 0.5, d0 <= 0, label + " (D <= 0)");
        const int eq = b.glue(GlueKind::kAnd, {le, ge}, "sub:" + label + (n.cmp == Cmp::kEq ? "" : " (=)"));
        return n.cmp == Cmp::kEq ? eq : b.glue(GlueKind::kNot, {eq}, "sub:" + label);
      }
    }
    return -1;
  }

  Plan& plan_;
  Builder& b_;
  const logic::Names* names_;
};

}  // namespace

Plan plan_formula(logic::Formula root, const std::string& alphabet, PeMode pe, double c, const logic::Names* names) {
  Plan plan;
  plan.alphabet = alphabet;
  plan.formula = names ? logic::to_string(root, *names) : logic::to_string(root);
  plan.pe = pe;
  plan.c = c;
  Builder b(plan);
  add_input_coords(plan, b, root);
  plan.output = FormulaPlanner(plan, b, names).build(root);
  return plan;
}

std::string Plan::describe() const {
  std::string out;
  out += fmt::format("formula      {}\n", formula);
  out += fmt::format("alphabet     {}\n", sym::encode(alphabet));
  out += fmt::format("pe           {} ({})\n", pe_name(pe),
                     pe == PeMode::kBounded ? "j/(n+1)" : "j and n");
  out += fmt::format("beta(n)      {}\n", counting ? "4*(n+1)*ln(n+1) (comparisons)"
                                        : pe == PeMode::kBounded ? fmt::format("{}*(n+1)", c) : fmt::format("{}", c));
  out += fmt::format("size         {} layers, {} heads, width {}, {} FFN units\n", layers.size(), heads(),
                     coords.size(), ffn_units());
  out += fmt::format("residual     {}\n", fmt::join(coords, ", "));
  for (std::size_t l = 0; l < layers.size(); ++l) {
    out += fmt::format("layer {}\n", l);
    for (std::size_t h = 0; h < layers[l].heads.size(); ++h) {
      const PlannedHead& head = layers[l].heads[h];
      switch (head.kind) {
        case HeadKind::kSince:
        case HeadKind::kUntil:
          out += fmt::format("  head {} {} {}: mask {}, {} hard; stop = {}; value = {} -> {}\n", h,
                             head.since() ? "since" : "until", head.label,
                             head.since() ? "strict-future" : "strict-past", head.since() ? "rightmost" : "leftmost",
                             head.stop.describe(coords), head.value.describe(coords), coords[head.raw]);
          break;
        case HeadKind::kCount:
          out += fmt::format("  head {} count {}: mask future, uniform (average hard); value = {} -> {}\n", h,
                             head.label, head.value.describe(coords), coords[head.raw]);
          break;
        case HeadKind::kSign:
          out += fmt::format("  head {} sign {}: mask future, query E = {} against BOS (average hard) -> {}\n", h,
                             head.label, head.query.describe(coords), coords[head.raw]);
          break;
      }
    }
    for (const GlueOp& op : layers[l].ffn) {
      std::vector<std::string> in;
      for (int i : op.inputs) in.push_back(coords[i]);
      if (op.kind == GlueKind::kSignRound) in[1] = fmt::format("value at BOS {}", op.inputs[1]);
      out += fmt::format("  ffn  {}({}) -> {}  [{} units]\n", glue_name(op.kind), fmt::join(in, ", "),
                         coords[op.target], op.units());
    }
  }
  out += fmt::format("output       {} >= 0.5 at position n (BOS for the empty word)\n", coords[output]);
  return out;
}

nlohmann::ordered_json Plan::to_json() const {
  nlohmann::ordered_json j;
  j["formula"] = formula;
  j["alphabet"] = sym::encode(alphabet);
  j["pe"] = pe_name(pe);
  j["beta"] = counting ? "4*(n+1)*ln(n+1)" : pe == PeMode::kBounded ? fmt::format("{}*(n+1)", c) : fmt::format("{}", c);
  j["layers"] = layers.size();
  j["heads"] = heads();
  j["width"] = coords.size();
  j["ffn_units"] = ffn_units();
  j["residual"] = coords;
  j["plan"] = nlohmann::ordered_json::array();
  static const char* const kKinds[] = {"since", "until", "count", "sign"};
  for (const PlannedLayer& layer : layers) {
    nlohmann::ordered_json l;
    l["heads"] = nlohmann::ordered_json::array();
    for (const PlannedHead& head : layer.heads) {
      nlohmann::ordered_json h = {{"kind", kKinds[static_cast<int>(head.kind)]}, {"label", head.label}};
      if (head.kind == HeadKind::kSince || head.kind == HeadKind::kUntil) h["stop"] = head.stop.describe(coords);
      if (head.kind != HeadKind::kSign) h["value"] = head.value.describe(coords);
      else h["query"] = head.query.describe(coords);
      h["writes"] = coords[head.raw];
      l["heads"].push_back(std::move(h));
    }
    l["ffn"] = nlohmann::ordered_json::array();
    for (const GlueOp& op : layer.ffn) {
      std::vector<std::string> in;
      for (int i : op.inputs) in.push_back(coords[i]);
      if (op.kind == GlueKind::kSignRound) in[1] = fmt::format("value at BOS {}", op.inputs[1]);
      l["ffn"].push_back({{"op", glue_name(op.kind)}, {"inputs", in}, {"writes", coords[op.target]}, {"units", op.units()}});
    }
    j["plan"].push_back(std::move(l));
  }
  j["output"] = coords[output];
  return j;
}

}  // namespace softhat::compile
