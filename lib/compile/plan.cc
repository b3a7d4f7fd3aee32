#include "compile/plan.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <set>
#include <cmath>
#include <functional>
#include <optional>
#include <stdexcept>
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

std::vector<int> GlueOp::input_coords() const {
  if (kind != GlueKind::kThreshold) return inputs;
  std::vector<int> out;
  for (const auto& [c, w] : terms) out.push_back(c);
  return out;
}

int GlueOp::units() const {
  switch (kind) {
    case GlueKind::kThreshold: return form == ThresholdForm::kRelu || form == ThresholdForm::kOneMinus ? 1 : 2;
    case GlueKind::kIff: return 2;
    case GlueKind::kSignRound: return 3;
  }
  return 0;
}

double Plan::head_leak() const { return counting ? 1.0 / 15.0 : 1.0 / std::expm1(c); }

int PlannedLayer::model_heads() const {
  int g = 0;
  for (const PlannedHead& h : heads) g = std::max(g, h.group + 1);
  return g;
}

int Plan::heads() const {
  int h = 0;
  for (const PlannedLayer& l : layers) h += l.model_heads();
  return h;
}

int Plan::head_values() const {
  int h = 0;
  for (const PlannedLayer& l : layers) h += static_cast<int>(l.heads.size());
  return h;
}

int Plan::max_raw_inputs() const {
  int m = 0;
  for (const PlannedLayer& l : layers) {
    for (const GlueOp& op : l.ffn) m = std::max(m, op.raw_inputs);
  }
  return m;
}

int Plan::ffn_units() const {
  int u = 0;
  for (const PlannedLayer& l : layers) {
    for (const GlueOp& op : l.ffn) u += op.units();
  }
  return u;
}

namespace {

const char* glue_name(const GlueOp& op) {
  switch (op.kind) {
    case GlueKind::kThreshold: return "threshold";
    case GlueKind::kIff: return "iff";
    case GlueKind::kSignRound: return "sign";
  }
  return "?";
}

// A literal: a coordinate's bit or its negation.
struct Lit {
  int coord;
  bool neg;
  auto operator<=>(const Lit&) const = default;
};

// A Boolean value not yet written to a coordinate: the and (conj) or the or
// of its literals, sorted and distinct. An empty and is true, an empty or
// false; a single literal is kept as an and.
struct Test {
  bool conj = true;
  std::vector<Lit> lits;
  bool operator==(const Test&) const = default;
  bool is_true() const { return conj && lits.empty(); }
  bool is_false() const { return !conj && lits.empty(); }
  bool single() const { return lits.size() == 1; }
};

Test literal(int coord, bool neg = false) { return Test{true, {{coord, neg}}}; }
Test constant(bool v) { return Test{v, {}}; }

Test negate(Test t) {
  t.conj = !t.conj;
  for (Lit& l : t.lits) l.neg = !l.neg;
  if (t.single()) t.conj = true;
  return t;
}

// A materialized test as the memo knows it: the same test, with or without
// the "and not BOS" guard of a head's stop and value, is written once.
struct TestKey {
  Test test;
  bool not_bos;
  bool operator==(const TestKey&) const = default;
};

struct TestKeyHash {
  std::size_t operator()(const TestKey& k) const {
    std::size_t h = std::hash<int>{}(k.test.conj * 2 + k.not_bos);
    for (const Lit& l : k.test.lits) {
      h ^= std::hash<int>{}(l.coord * 2 + l.neg) + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);  // boost's hash_combine
    }
    return h;
  }
};

// What a bit implies: for each exclusivity group, the set of its members the
// bit implies one of. Group kLetters has the letters' one-hots as members
// (one letter per position); group kFacts + g is the formula source's g-th
// group (plan_formula's `exclusive`). Two bits whose sets in one group are
// disjoint are never both 1.
// Groups kStart and kEnd have two members each: 0, the word's first (last)
// position, and 1, any other. A since head's output bit (not weak) is 1 only
// where an earlier position exists, an until head's only where a later one
// does (at the first position a since head sees BOS alone, whose value is
// 0), and first (last) holds only at the first (last) position: so first & b
// and b & Y b are never both 1.
using Tags = std::map<int, std::set<int>>;
constexpr int kStart = -2, kEnd = -1, kLetters = 0, kFacts = 1;

// The fewest written bits a head's form reads through one sum coordinate
// (Builder::summed). Below it the head reads the bits themselves: the sum
// would cost a coordinate and as many FFN weights as it saves head weights
// (the catalogue's formulas keep their models).
constexpr std::size_t kSumMin = 4;

// The widest test that rounds raw head outputs itself (see materialize).
// Measured on the 66 star-free automata of the MLRegTest sample: no limit
// gives 2,803 layers and 238,918 nonzero weights in all, 8 gives 2,819 and
// 208,228, 4 gives 2,932 and 188,824 (rounding every head on its own, as
// before fusion: 4,278 and 185,264); the catalogue's formulas need up to 7.
constexpr std::size_t kFuseMax = 8;

// Builds the plan bottom-up. Each coordinate records when it is ready: -1
// for embeddings, L when written by layer L's FFN (readable by the attention
// and the FFN of layer L + 1), and for a since/until head's raw output of
// layer L, L with `raw` set (readable by the FFN of layer L, never by a
// head: heads read exact bits only).
class Builder {
 public:
  explicit Builder(Plan& plan) : plan_(&plan) {}

  int coord(std::string label, int ready, int bos_value = -1, bool raw = false) {
    plan_->coords.push_back(std::move(label));
    ready_.push_back(ready);
    bos_value_.push_back(bos_value);
    raw_.push_back(raw);
    tags_.emplace_back();
    return static_cast<int>(plan_->coords.size()) - 1;
  }

  // Marks a coordinate as the one-hot of a letter (it implies itself).
  void set_token(int c) { tags_[c] = Tags{{kLetters, {c}}}; }

  // A fact from the formula's source (cascade/derive.h, `exclusive`): the
  // test implies member m of group g, whose members exclude each other.
  void imply(const Test& t, int g, int m) {
    const Tags x{{kFacts + g, {m}}};
    meet(test_tags_[TestKey{t, false}], x);
    if (t.single() && !t.lits[0].neg) meet(tags_[t.lits[0].coord], x);
  }

  PlannedLayer& layer(int l) {
    if (static_cast<int>(plan_->layers.size()) <= l) plan_->layers.resize(l + 1);
    return plan_->layers[l];
  }

  // Adds a head to layer l, sharing a model head with one whose attention is
  // the same: a since or until head with the same stop (same query and key),
  // or a count head (uniform attention: no query or key). Its value gets the
  // next column of that head.
  void push_head(int l, PlannedHead head) {
    PlannedLayer& pl = layer(l);
    head.group = pl.model_heads();
    head.slot = 0;
    for (const PlannedHead& o : pl.heads) {
      const bool same = o.kind == head.kind &&
                        (head.kind == HeadKind::kCount ||
                         (head.kind != HeadKind::kSign && form_key(o.stop) == form_key(head.stop)));
      if (!same) continue;
      head.group = o.group;
      head.slot = std::max(head.slot, o.slot + 1);
    }
    pl.heads.push_back(std::move(head));
  }

  // The first layer whose FFN (resp. attention) may read coordinate c.
  int ffn_first(int c) const { return raw_[c] ? ready_[c] : ready_[c] + 1; }
  // The first layer whose FFN may read every literal of t (0 for a constant).
  int ffn_first(const Test& t) const {
    int l = 0;
    for (const Lit& lit : t.lits) l = std::max(l, ffn_first(lit.coord));
    return l;
  }
  int attn_first(int c) const {
    if (raw_[c]) throw std::logic_error("plan: a head would read a raw head output");
    return ready_[c] + 1;
  }

  int zero() {
    if (plan_->zero < 0) plan_->zero = coord("false", -1, 0);
    return plan_->zero;
  }

  // A token is the only bit whose letters are exactly itself.
  bool is_token(int c) const {
    if (c < 0) return false;
    auto it = tags_[c].find(kLetters);
    return it != tags_[c].end() && it->second.size() == 1 && *it->second.begin() == c;
  }

  // The and (conj) or the or of tests. A kid of the other kind with more
  // than one literal is written to a coordinate first (one FFN); every other
  // kid's literals join the result. Letters exclude each other at every
  // position (one-hot symbols, all 0 at BOS), which decides some pairs.
  Test combine(bool conj, const std::vector<Test>& kids, const std::vector<std::string>& labels) {
    std::vector<std::size_t> live;  // the kids that are not constants
    for (std::size_t k = 0; k < kids.size(); ++k) {
      if (!kids[k].lits.empty()) {
        live.push_back(k);
      } else if (kids[k].conj != conj) {
        return constant(!conj);  // a false kid of an and, a true kid of an or
      }
    }
    if (live.size() == 1) return kids[live[0]];
    std::vector<Lit> lits;
    for (std::size_t k : live) {
      const Test& t = kids[k];
      if (t.conj == conj || t.single()) {
        lits.insert(lits.end(), t.lits.begin(), t.lits.end());
      } else if (auto it = memo_.find({negate(t), false}); it != memo_.end()) {
        lits.push_back({it->second, true});  // its negation is written already
      } else {
        lits.push_back({materialize(t, false, labels[k]), false});
      }
    }
    std::sort(lits.begin(), lits.end());
    lits.erase(std::unique(lits.begin(), lits.end()), lits.end());
    // x and !x is false, x or !x true.
    for (std::size_t i = 0; i + 1 < lits.size(); ++i) {
      if (lits[i].coord == lits[i + 1].coord) return constant(!conj);
    }
    // Letters: in an and, two letters are false and a letter makes every
    // other letter's negation redundant; in an or, two negated letters are
    // true and a negated letter makes every other letter redundant.
    const bool strong = conj ? false : true;  // the polarity of the literal that decides: a letter in an and, !letter in an or
    int decider = -1;
    for (const Lit& l : lits) {
      if (l.neg == strong && is_token(l.coord)) {
        if (decider >= 0) return constant(!conj);
        decider = l.coord;
      }
    }
    if (decider >= 0) {
      std::erase_if(lits, [&](const Lit& l) { return l.neg != strong && is_token(l.coord) && l.coord != decider; });
    }
    // In an or, a bit that implies one of the letters the or already has is
    // redundant (absorption: a | (x & a) = a).
    if (!conj) {
      std::set<int> letters;
      for (const Lit& l : lits) {
        if (!l.neg && is_token(l.coord)) letters.insert(l.coord);
      }
      if (!letters.empty()) {
        std::erase_if(lits, [&](const Lit& l) {
          if (l.neg || is_token(l.coord)) return false;
          auto it = tags_[l.coord].find(kLetters);
          return it != tags_[l.coord].end() &&
                 std::all_of(it->second.begin(), it->second.end(), [&](int c) { return letters.count(c) > 0; });
        });
      }
    }
    Test out{conj, std::move(lits)};
    if (out.single()) out.conj = true;
    return out;
  }

  // A test's value at the BOS row, when every literal's is known there.
  std::optional<int> bos_value(const Test& t) const {
    bool all = true, any = false;
    for (const Lit& l : t.lits) {
      if (bos_value_[l.coord] < 0) return std::nullopt;
      const bool v = (bos_value_[l.coord] == 1) != l.neg;
      all = all && v;
      any = any || v;
    }
    return t.conj ? all : any;
  }

  // Writes a test to a coordinate with one threshold unit (two when it must
  // round): t = sum of its literals - (k - 1) for an and of k, the sum for an
  // or, and [t >= 1] is the test. With `not_bos`, the result is forced to 0
  // at BOS (a head's stop and value). Raw head outputs are read directly
  // while their deviations (eps each) add up to at most 1/4, so that rho
  // maps t to the exact bit; beyond that the earliest are rounded first.
  int materialize(Test t, bool not_bos, const std::string& label) {
    if (!not_bos) {
      if (t.is_true()) return plan_->one;
      if (t.is_false()) return zero();
      if (t.single() && !t.lits[0].neg && !raw_[t.lits[0].coord]) return t.lits[0].coord;
    }
    const double eps = plan_->head_leak();
    auto raw_count = [&] {
      return std::count_if(t.lits.begin(), t.lits.end(), [&](const Lit& l) { return raw_[l.coord]; });
    };
    // Rounding in the test itself takes two units that both read all k of
    // its literals; a wide test (more than kFuseMax) costs fewer weights
    // reading the heads' outputs rounded on their own (two weights each,
    // shared), at the price of one FFN stage.
    // A raw literal replaced by the head's output rounded on its own.
    auto round_on_its_own = [&](Lit& l) { l = Lit{materialize(literal(l.coord), false, "sub:" + head_label(l.coord)), l.neg}; };
    if (t.lits.size() > kFuseMax && raw_count() > 0) {
      for (Lit& l : t.lits) {
        if (raw_[l.coord]) round_on_its_own(l);
      }
      std::sort(t.lits.begin(), t.lits.end());
    }
    if (raw_count() > 1 && raw_count() * eps > 0.25) {
      // The earliest heads first (stable among equals: the literals' order).
      std::stable_sort(t.lits.begin(), t.lits.end(), [&](const Lit& a, const Lit& b) {
        return raw_[a.coord] > raw_[b.coord] || (raw_[a.coord] && raw_[b.coord] && ready_[a.coord] < ready_[b.coord]);
      });
      for (Lit& l : t.lits) {
        if (!raw_[l.coord] || raw_count() * eps <= 0.25) break;
        round_on_its_own(l);
      }
      std::sort(t.lits.begin(), t.lits.end());
    }
    TestKey key{t, not_bos};
    if (auto it = memo_.find(key); it != memo_.end()) return it->second;

    GlueOp op{.kind = GlueKind::kThreshold, .target = -1};
    const int k = static_cast<int>(t.lits.size());
    // A literal on a coordinate that is a sum of exact bits (sum_of_) reads
    // those bits instead where that makes the unit earlier: the layer is
    // the latest of the other literals and the sums' parts.
    auto parts_first = [&](int c) {
      int f = 0;
      for (const auto& [x, w] : sum_of_.at(c).terms) f = std::max(f, ffn_first(x));
      return f;
    };
    int l = 0;
    for (const Lit& lit : t.lits) l = std::max(l, sum_of_.count(lit.coord) ? parts_first(lit.coord) : ffn_first(lit.coord));
    std::vector<std::string> shown;
    for (const Lit& lit : t.lits) {
      op.bias += lit.neg ? 1 : 0;
      op.raw_inputs += raw_[lit.coord] ? 1 : 0;
      shown.push_back((lit.neg ? "!" : "") + plan_->coords[lit.coord]);
      if (sum_of_.count(lit.coord) && ffn_first(lit.coord) > l) {
        for (const auto& [x, w] : sum_of_.at(lit.coord).terms) {
          op.terms.emplace_back(x, static_cast<int>(lit.neg ? -w : w));
        }
        shown.back() += "=sum";
        continue;
      }
      op.terms.emplace_back(lit.coord, lit.neg ? -1 : 1);
    }
    if (t.conj) {
      op.bias -= k - 1;  // an empty and is 1
      if (not_bos) {
        op.terms.emplace_back(plan_->bos, -1);  // and !bos
        shown.push_back("!bos");
      }
      op.form = ThresholdForm::kRelu;
    } else {
      if (not_bos) op.terms.emplace_back(plan_->bos, -k);  // t <= k, so t - k bos <= 0 at BOS
      op.form = not_bos ? ThresholdForm::kClamp : ThresholdForm::kOneMinus;
    }
    const bool rounds = op.raw_inputs > 0;
    if (rounds) op.form = ThresholdForm::kRho;
    std::string expr;
    if (k == 1 && !not_bos) {
      expr = t.lits[0].neg ? fmt::format("not({})", plan_->coords[t.lits[0].coord]) : plan_->coords[t.lits[0].coord];
    } else {
      expr = fmt::format("{}({})", t.conj ? "and" : "or", fmt::join(shown, ", "));
      if (!t.conj && not_bos) expr = fmt::format("and({}, !bos)", expr);
    }
    op.expr = rounds ? fmt::format("round({})", expr) : expr;
    int bv = -1;
    if (not_bos) {
      bv = 0;
    } else if (auto v = bos_value(t)) {
      bv = *v;
    }
    const int target = coord(label, l, bv);
    tags_[target] = implied(t);
    int sum_at_bos = 0;
    if (auto f = affine(t, &sum_at_bos); f && !not_bos && !t.single()) {
      // The bit equals this sum of exact bits at every row: the affine form
      // (0 at BOS) plus the bit's value at BOS.
      const bool at_bos = t.conj ? sum_at_bos == 0 : sum_at_bos >= 1;
      if (at_bos) f->terms.emplace_back(plan_->bos, 1.0);
      sum_of_[target] = std::move(*f);
    }
    op.target = target;
    layer(l).ffn.push_back(std::move(op));
    writer_[target] = {l, static_cast<int>(layer(l).ffn.size()) - 1};
    memo_.emplace(std::move(key), target);
    return target;
  }

  // What a test implies, as member sets per exclusivity group (a token is
  // its own member of the letters' group; facts add groups): an and implies
  // what each of its literals does, an or what all of its literals do.
  Tags implied(const Test& t) const {
    Tags out;
    for (std::size_t i = 0; i < t.lits.size(); ++i) {
      const Tags x = lit_tags(t.lits[i]);
      if (t.conj) {
        meet(out, x);
      } else if (i == 0) {
        out = x;
      } else {
        join(out, x);
      }
    }
    if (auto it = test_tags_.find(TestKey{t, false}); it != test_tags_.end()) meet(out, it->second);
    return out;
  }

  Tags lit_tags(const Lit& l) const {
    Tags out;
    if (!l.neg) out = tags_[l.coord];
    if (auto it = test_tags_.find(TestKey{literal(l.coord, l.neg), false}); it != test_tags_.end()) meet(out, it->second);
    return out;
  }

  // Two bits that imply members of one group with no member in common are
  // never 1 at the same position.
  static bool exclusive(const Tags& a, const Tags& b) {
    for (const auto& [g, m] : a) {
      auto it = b.find(g);
      if (it == b.end()) continue;
      if (std::none_of(m.begin(), m.end(), [&](int x) { return it->second.count(x) > 0; })) return true;
    }
    return false;
  }

  // Both hold: each group's members are those in both.
  static void meet(Tags& a, const Tags& b) {
    for (const auto& entry : b) {
      const std::set<int>& m = entry.second;
      auto [it, added] = a.emplace(entry.first, m);
      if (!added) std::erase_if(it->second, [&](int x) { return m.count(x) == 0; });
    }
  }

  // One of them holds: the groups of both, each with the members of either.
  static void join(Tags& a, const Tags& b) {
    std::erase_if(a, [&](const auto& e) { return b.count(e.first) == 0; });
    for (auto& [g, m] : a) m.insert(b.at(g).begin(), b.at(g).end());
  }

  // A head's stop or value form in the embedding, or in coordinates already
  // written, when the test is linear in them: a single literal on an exact bit
  // whose value at BOS is known, a constant, or an or of exact bits that
  // exclude each other pairwise (an and of their negations): bits that imply
  // distinct letters (one-hot symbols), or distinct members of a group the
  // formula's source proved exclusive. Their or is their sum at every real
  // position and the and of their negations 1 minus it; the form subtracts
  // its value at BOS times bos, so that it is 0 there, as a head's stop and
  // value must be. The sum saves the FFN stage that would write the or, and
  // the layer it may cost.
  std::optional<LinearForm> affine(const Test& t, int* sum_at_bos = nullptr) const {
    LinearForm f;
    if (t.lits.empty()) {
      if (t.is_true()) f.terms = {{plan_->one, 1.0}, {plan_->bos, -1.0}};
      return f;  // false: 0 everywhere
    }
    if (!t.single()) {
      std::vector<Tags> tags;
      int at_bos = 0;  // the sum at BOS
      for (const Lit& l : t.lits) {
        if (l.neg != t.conj || raw_[l.coord]) return std::nullopt;
        tags.push_back(lit_tags(Lit{l.coord, false}));
        // A bit that implies a letter is 0 at BOS (no letter there).
        const int bos = tags.back().count(kLetters) ? 0 : bos_value_[l.coord];
        if (bos < 0) return std::nullopt;
        at_bos += bos;
      }
      for (std::size_t i = 0; i < tags.size(); ++i) {
        for (std::size_t j = 0; j < i; ++j) {
          if (!exclusive(tags[i], tags[j])) return std::nullopt;
        }
      }
      if (t.conj) f.terms.emplace_back(plan_->one, 1.0);
      for (const Lit& l : t.lits) f.terms.emplace_back(l.coord, t.conj ? -1.0 : 1.0);
      if (sum_at_bos) *sum_at_bos = at_bos;
      const int bos = t.conj ? 1 - at_bos : at_bos;  // the form's value at BOS without the correction
      if (bos != 0) f.terms.emplace_back(plan_->bos, -static_cast<double>(bos));
      return f;
    }
    const Lit& lit = t.lits[0];
    if (raw_[lit.coord] || bos_value_[lit.coord] < 0) return std::nullopt;
    if (lit.neg) f.terms.emplace_back(plan_->one, 1.0);
    f.terms.emplace_back(lit.coord, lit.neg ? -1.0 : 1.0);
    if ((bos_value_[lit.coord] == 1) != lit.neg) f.terms.emplace_back(plan_->bos, -1.0);
    return f;
  }

  // The form a head reads for a test (stop or value): affine, or a
  // coordinate an FFN writes (and not BOS).
  LinearForm head_input(const Test& t, const std::string& label) {
    if (auto f = affine(t)) return summed(*f, label);
    // A test that is 0 at BOS for every word needs no guard (and so is
    // shared with the same test elsewhere).
    const std::optional<int> at_bos = bos_value(t);
    return LinearForm{{{materialize(t, !(at_bos && *at_bos == 0), label), 1.0}}};
  }

  // An affine form's terms on bits that FFN units write, replaced by one
  // coordinate that those units write as well: at most one of the bits is 1
  // (affine checked it) and the residual stream adds what every unit writes,
  // so the coordinate is their sum at every row (the bits' values at BOS
  // included). A head then reads one coordinate instead of one per term, in
  // the same layer: the sum is complete when its last term is. Shared by
  // every form with the same terms.
  LinearForm summed(LinearForm f, const std::string& label) {
    std::vector<int> parts;
    double weight = 0;
    for (const auto& [c, w] : f.terms) {
      if (!writer_.count(c)) continue;
      if (weight != 0 && w != weight) return f;  // mixed signs: not one sum
      weight = w;
      parts.push_back(c);
    }
    if (parts.size() < kSumMin) return f;
    std::sort(parts.begin(), parts.end());
    auto [it, added] = memo_sums_.emplace(parts, -1);
    if (added) {
      int ready = -1;
      for (int c : parts) ready = std::max(ready, ready_[c]);
      it->second = coord("sum:" + label.substr(label.find(':') + 1), ready);
      for (int c : parts) {
        const auto [l, i] = writer_.at(c);
        plan_->layers[l].ffn[i].also.push_back(it->second);
      }
    }
    LinearForm out;
    for (const auto& [c, w] : f.terms) {
      if (!std::binary_search(parts.begin(), parts.end(), c)) out.terms.emplace_back(c, w);
    }
    out.terms.emplace_back(it->second, weight);
    return out;
  }

  // The first attention layer that may read every coordinate of the forms.
  int attention_layer(std::initializer_list<const LinearForm*> forms) const {
    int l = 0;
    for (const LinearForm* f : forms) {
      for (const auto& [c, w] : f->terms) l = std::max(l, attn_first(c));
    }
    return l;
  }

  // guard S event (since) or guard U event (until): stop = !guard or event,
  // value = event, both 0 at BOS. The head's raw output is within eps of the
  // bit; whatever reads it rounds it.
  // `weak`: (guard S event) or H guard, the same head with value event + bos:
  // with no stop before i the head attends to BOS, and H guard holds exactly
  // then. Values stay in [0, 1], so the output is within eps of the bit as
  // for any since head.
  Test temporal(bool since, const Test& guard, const Test& event, const std::string& label,
                const std::string& not_guard_label, const std::string& event_label, bool weak = false) {
    const Test stop_test = combine(false, {negate(guard), event}, {not_guard_label, event_label});
    const LinearForm stop = head_input(stop_test, "stop:" + label);
    LinearForm value = head_input(event, "value:" + label);
    if (weak) value.terms.emplace_back(plan_->bos, 1.0);
    std::string key = since ? (weak ? "W:" : "S:") : "U:";
    key += form_key(stop) + ";" + form_key(value);
    if (auto it = memo_heads_.find(key); it != memo_heads_.end()) return literal(it->second);
    const int l = attention_layer({&stop, &value});
    PlannedHead head{since ? HeadKind::kSince : HeadKind::kUntil, label, stop, value, {}};
    // At the BOS row a since head sees only BOS (value 0, 1 when weak): its
    // output is that value.
    head.raw = coord("att:" + label, l, since ? (weak ? 1 : 0) : -1, /*raw=*/true);
    if (!weak) {
      // The bit holds only where an earlier (later) position exists; with an
      // event true everywhere (Y true, O true, X true, F true) it holds at
      // every such position, so its negation (first, last) only at the end.
      const int end = since ? kStart : kEnd;
      tags_[head.raw] = Tags{{end, {1}}};
      if (event.is_true()) meet(test_tags_[TestKey{negate(literal(head.raw)), false}], Tags{{end, {0}}});
    }
    push_head(l, head);
    memo_heads_[key] = head.raw;
    return literal(head.raw);
  }

  // #phi / (i+1) by a uniform head over j <= i (BOS in the denominator).
  int count(const Test& phi, const std::string& label) {
    const LinearForm value = head_input(phi, "value:#" + label);
    const std::string key = "#:" + form_key(value);
    if (auto it = memo_heads_.find(key); it != memo_heads_.end()) return it->second;
    const int l = attention_layer({&value});
    PlannedHead head{HeadKind::kCount, "#" + label, {}, value, {}};
    head.raw = coord("frac:#" + label, l);
    push_head(l, head);
    memo_heads_[key] = head.raw;
    return head.raw;
  }

  int frac_one() {
    if (plan_->frac_one < 0) {
      PlannedHead head{HeadKind::kCount, "#bos", {}, LinearForm{{{plan_->bos, 1.0}}}, {}};
      head.raw = plan_->frac_one = coord("frac:1", 0);
      push_head(0, head);
    }
    return plan_->frac_one;
  }

  // [E > 0] where E (a linear form in count fractions) is a nonzero multiple
  // of 1/(2(i+1)); `known` is the value at BOS (the contract's point 0).
  int positive(const LinearForm& e, bool known, const std::string& label) {
    const std::string key = "sign:" + form_key(e) + (known ? "1" : "0");
    if (auto it = memo_heads_.find(key); it != memo_heads_.end()) return it->second;
    const int l = attention_layer({&e});
    PlannedHead head{HeadKind::kSign, label, {}, LinearForm{{{plan_->bos, 1.0}}}, e};
    head.raw = coord("att:" + label, l);
    head.result = coord("sub:" + label, l, known ? 1 : 0);  // the compile-time value at point 0
    push_head(l, head);
    layer(l).ffn.push_back(GlueOp{.kind = GlueKind::kSignRound, .target = head.result, .inputs = {head.raw, known ? 1 : 0}});
    memo_heads_[key] = head.result;
    return head.result;
  }

  // x <-> y: not a threshold of x and y, so both are written as exact bits
  // first; 1 - ReLU(x - y) - ReLU(y - x).
  Test iff(const Test& x, const Test& y, const std::string& label, const std::string& x_label,
           const std::string& y_label) {
    const int a = materialize(x, false, x_label), b = materialize(y, false, y_label);
    const std::pair<int, int> key{a, b};
    if (auto it = memo_iff_.find(key); it != memo_iff_.end()) return literal(it->second);
    int bv = -1;
    if (bos_value_[a] >= 0 && bos_value_[b] >= 0) bv = bos_value_[a] == bos_value_[b];
    const int l = std::max(ffn_first(a), ffn_first(b));
    const int target = coord(label, l, bv);
    layer(l).ffn.push_back(GlueOp{.kind = GlueKind::kIff, .target = target, .inputs = {a, b}});
    memo_iff_[key] = target;
    return literal(target);
  }

  std::unordered_map<logic::Formula, Test> done;

 private:
  // A head's linear form as its memo key.
  static std::string form_key(const LinearForm& f) {
    std::string key;
    for (const auto& [c, w] : f.terms) key += fmt::format("{}*{},", w, c);
    return key;
  }

  // "sub:LABEL" for a head's raw output "att:LABEL".
  std::string head_label(int raw) const { return plan_->coords[raw].substr(4); }

  Plan* plan_;  // a pointer: a Builder is copied and assigned (FormulaPlanner::merge_reachability)
  std::vector<int> ready_;
  std::vector<int> bos_value_;  // the 0/1 value at the BOS row when it is the same for every word, else -1
  std::vector<bool> raw_;       // a since/until head's raw output
  std::vector<Tags> tags_;      // what the bit implies (implied())
  std::unordered_map<TestKey, Tags, TestKeyHash> test_tags_;  // facts on tests (imply())
  std::unordered_map<int, LinearForm> sum_of_;  // written ors (ands of negations) that equal a sum of exact bits
  std::unordered_map<int, std::pair<int, int>> writer_;  // a threshold's target -> (layer, index in its FFN)
  std::map<std::vector<int>, int> memo_sums_;            // summed(): terms -> their sum's coordinate
  std::unordered_map<TestKey, int, TestKeyHash> memo_;         // materialized tests
  std::unordered_map<std::string, int> memo_heads_;            // heads: since/until, count, sign
  std::map<std::pair<int, int>, int> memo_iff_;
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
  for (char s : plan.alphabet) {
    plan.tokens[s] = b.coord("tok:" + sym::encode(s), -1, 0);  // labels are UTF-8
    b.set_token(plan.tokens[s]);
  }
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
// tests (and/or of literals, written to a coordinate only where a head, an
// iff or the readout needs one), temporal operators as since/until heads,
// comparisons of counts as count and sign heads.
class FormulaPlanner {
 public:
  FormulaPlanner(Plan& plan, Builder& b, const logic::Names* names, const Exclusive* exclusive)
      : plan_(plan), b_(b), names_(names) {
    if (!exclusive) return;
    for (std::size_t g = 0; g < exclusive->size(); ++g) {
      for (std::size_t m = 0; m < (*exclusive)[g].size(); ++m) {
        facts_[(*exclusive)[g][m]].emplace_back(static_cast<int>(g), static_cast<int>(m));
      }
    }
  }

  // The test that decides f.
  Test build(logic::Formula f) {
    if (auto it = b_.done.find(f); it != b_.done.end()) return it->second;
    Plan& plan = plan_;
    Builder& b = b_;
    const logic::Node& n = *f;
    const std::string label = text_of(f, names_);
    auto kid = [&](int k) { return build(n.kids[k]); };
    auto kid_label = [&](int k) { return sub_label(n.kids[k]); };
    auto not_label = [&](logic::Formula g) { return sub_label(logic::not_(g)); };
    const Test always = constant(true), never = constant(false);
    Test out;
    switch (n.op) {
      case Op::kTrue: out = always; break;
      case Op::kFalse: out = never; break;
      case Op::kLetter: out = literal(plan.tokens.at(n.letter)); break;
      case Op::kMod:
        for (const auto& [m, first] : plan.mod_features) {
          if (m == n.m) out = literal(first + static_cast<int>(n.r));
        }
        break;
      case Op::kNot: out = negate(kid(0)); break;
      case Op::kAnd:
      case Op::kOr: {
        std::vector<Test> in;
        std::vector<std::string> labels;
        std::vector<bool> used(n.kids.size(), false);
        if (n.op == Op::kOr) {
          // (g S e) or H g: one weak since head.
          for (std::size_t k = 0; k < n.kids.size(); ++k) {
            const logic::Formula s = n.kids[k];
            if (used[k] || s->op != Op::kSince) continue;
            for (std::size_t h = 0; h < n.kids.size(); ++h) {
              const logic::Formula hg = n.kids[h];
              if (used[h] || hg->op != Op::kHistorically || hg->kids[0] != s->kids[0]) continue;
              const logic::Formula both = logic::or_(s, hg);
              in.push_back(b.temporal(true, build(s->kids[0]), build(s->kids[1]), text_of(both, names_),
                                      not_label(s->kids[0]), sub_label(s->kids[1]), /*weak=*/true));
              labels.push_back(sub_label(both));
              used[k] = used[h] = true;
              break;
            }
          }
        }
        merge_reachability(n, used, in, labels);
        for (std::size_t k = 0; k < n.kids.size(); ++k) {
          if (used[k]) continue;
          in.push_back(kid(static_cast<int>(k)));
          labels.push_back(kid_label(static_cast<int>(k)));
        }
        out = b.combine(n.op == Op::kAnd, in, labels);
        break;
      }
      case Op::kImplies: out = b.combine(false, {negate(kid(0)), kid(1)}, {not_label(n.kids[0]), kid_label(1)}); break;
      case Op::kIff: out = b.iff(kid(0), kid(1), "sub:" + label, kid_label(0), kid_label(1)); break;
      // Past: Y p = false S p, O p = true S p, H p = !O !p, first = !Y true.
      case Op::kYesterday: out = b.temporal(true, never, kid(0), label, "sub:true", kid_label(0)); break;
      case Op::kOnce: out = b.temporal(true, always, kid(0), label, "sub:false", kid_label(0)); break;
      case Op::kSince: out = b.temporal(true, kid(0), kid(1), label, not_label(n.kids[0]), kid_label(1)); break;
      case Op::kHistorically: {
        const logic::Formula inner = logic::once(logic::not_(n.kids[0]));
        out = negate(b.temporal(true, always, negate(kid(0)), text_of(inner, names_), "sub:false",
                                not_label(n.kids[0])));
        break;
      }
      case Op::kFirst: out = negate(b.temporal(true, never, always, "Y true", "sub:true", "sub:true")); break;
      // Future mirrors: X p = false U p, F p = true U p, G p = !F !p, last = !X true.
      case Op::kNext: out = b.temporal(false, never, kid(0), label, "sub:true", kid_label(0)); break;
      case Op::kEventually: out = b.temporal(false, always, kid(0), label, "sub:false", kid_label(0)); break;
      case Op::kUntil: out = b.temporal(false, kid(0), kid(1), label, not_label(n.kids[0]), kid_label(1)); break;
      case Op::kGlobally: {
        const logic::Formula inner = logic::eventually(logic::not_(n.kids[0]));
        out = negate(b.temporal(false, always, negate(kid(0)), text_of(inner, names_), "sub:false",
                                not_label(n.kids[0])));
        break;
      }
      case Op::kLast: out = negate(b.temporal(false, never, always, "X true", "sub:true", "sub:true")); break;
      case Op::kCompare: out = compare(n, label); break;
    }
    if (auto it = facts_.find(f); it != facts_.end()) {
      for (const auto& [g, m] : it->second) b.imply(out, g, m);
    }
    b.done[f] = out;
    return out;
  }

 private:
  std::string sub_label(logic::Formula f) const { return "sub:" + text_of(f, names_); }

  // Several operands of one & or | that each ask whether something happened
  // earlier (or happens later) can be one head: O p | O q = O (p | q), and
  // under &, !O p & !O q = !O (p | q) and H p & H q = H (p & q) = !O (!p | !q)
  // (the future mirrors with F and G). The merged head costs one head instead
  // of k, but its stop, an or of the events, may need one more FFN stage
  // than the events' own stops (an or of ands that are not proved exclusive
  // is not one threshold). So both are built and the merge kept only when
  // its result is ready as early as the separate heads' and the plan is no
  // deeper: ab-star's three O heads become one (2 layers and 4 heads to 3
  // and 2 would be deeper: kept when not). Operands with exclusivity facts
  // are left alone (their tests must be built as themselves).
  void merge_reachability(const logic::Node& n, std::vector<bool>& used, std::vector<Test>& in,
                          std::vector<std::string>& labels) {
    const bool conj = n.op == Op::kAnd;
    for (const bool past : {true, false}) {
      const Op exists = past ? Op::kOnce : Op::kEventually;
      const Op every = past ? Op::kHistorically : Op::kGlobally;
      std::vector<logic::Formula> events;  // the group is O/F of their disjunction
      std::vector<std::size_t> members;
      for (std::size_t k = 0; k < n.kids.size(); ++k) {
        const logic::Formula g = n.kids[k];
        if (used[k] || facts_.count(g)) continue;
        // Under &: !O x contributes x, H p contributes !p; under |: O x, !H p.
        const bool negated = g->op == Op::kNot;
        const logic::Formula inner = negated ? g->kids[0] : g;
        if (facts_.count(inner)) continue;
        if (inner->op == exists && negated == conj) {
          events.push_back(inner->kids[0]);
        } else if (inner->op == every && negated != conj) {
          events.push_back(logic::not_(inner->kids[0]));
        } else {
          continue;
        }
        members.push_back(k);
      }
      if (members.size() < 2) continue;
      const logic::Formula reach = past ? logic::once(logic::or_(events)) : logic::eventually(logic::or_(events));
      const logic::Formula merged = conj ? logic::not_(reach) : reach;
      // The separate heads first, then the merged one from the same state.
      const Plan plan_before = plan_;
      const Builder builder_before = b_;
      int separate_ready = 0;
      for (const std::size_t k : members) separate_ready = std::max(separate_ready, b_.ffn_first(build(n.kids[k])));
      const std::size_t separate_depth = plan_.layers.size();
      Plan plan_separate = plan_;
      Builder builder_separate = b_;
      plan_ = plan_before;
      b_ = builder_before;
      const Test out = build(merged);
      if (b_.ffn_first(out) > separate_ready || plan_.layers.size() > separate_depth) {
        plan_ = std::move(plan_separate);  // deeper: the separate heads, as built
        b_ = std::move(builder_separate);
        continue;
      }
      in.push_back(out);
      labels.push_back(sub_label(merged));
      for (const std::size_t k : members) used[k] = true;
    }
  }

  // lhs < rhs (and <=, >, >=, =, !=) on counts: the sign of D = rhs - lhs.
  Test compare(const logic::Node& n, const std::string& label) {
    Builder& b = b_;
    const logic::Names* names = names_;
    // D = rhs - lhs as count fractions: sum c_k #phi_k / (i+1), constants via 1/(i+1).
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
      return literal(b.positive(e, known, what));
    };
    using logic::Cmp;
    switch (n.cmp) {
      case Cmp::kLt: return test(1, -0.5, d0 >= 1, label);
      case Cmp::kLe: return test(1, 0.5, d0 >= 0, label);
      case Cmp::kGt: return test(-1, -0.5, d0 <= -1, label);
      case Cmp::kGe: return test(-1, 0.5, d0 <= 0, label);
      case Cmp::kEq:
      case Cmp::kNe: {
        const Test le = test(1, 0.5, d0 >= 0, label + " (D >= 0)");
        const Test ge = test(-1, 0.5, d0 <= 0, label + " (D <= 0)");
        const Test eq = b.combine(true, {le, ge}, {"", ""});  // literals: nothing to write
        return n.cmp == Cmp::kEq ? eq : negate(eq);
      }
    }
    return never_;
  }

  Plan& plan_;
  Builder& b_;
  const logic::Names* names_;
  std::unordered_map<logic::Formula, std::vector<std::pair<int, int>>> facts_;  // member -> (group, index)
  const Test never_ = constant(false);
};

}  // namespace

// Removes the Boolean glue whose result nothing reads (an or written before
// a unit read its parts as a sum instead: materialize), and the layers left
// with neither heads nor glue. The coordinates stay (0 in every row).
namespace {
void drop_unread(Plan& plan) {
  for (bool changed = true; changed;) {
    changed = false;
    std::set<int> read{plan.output};
    for (const PlannedLayer& l : plan.layers) {
      for (const PlannedHead& h : l.heads) {
        for (const LinearForm* f : {&h.stop, &h.value, &h.query}) {
          for (const auto& [c, w] : f->terms) read.insert(c);
        }
      }
      for (const GlueOp& op : l.ffn) {
        if (op.kind == GlueKind::kSignRound) {
          read.insert(op.inputs[0]);  // inputs[1] is a value, not a coordinate
        } else {
          for (int c : op.input_coords()) read.insert(c);
        }
      }
    }
    for (PlannedLayer& l : plan.layers) {
      changed |= std::erase_if(l.ffn, [&](const GlueOp& op) {
        return op.kind == GlueKind::kThreshold && !read.count(op.target) &&
               std::none_of(op.also.begin(), op.also.end(), [&](int a) { return read.count(a) > 0; });
      }) > 0;
    }
  }
  std::erase_if(plan.layers, [](const PlannedLayer& l) { return l.heads.empty() && l.ffn.empty(); });
}
}  // namespace

Plan plan_formula(logic::Formula root, const std::string& alphabet, PeMode pe, double c, const logic::Names* names,
                  const Exclusive* exclusive) {
  Plan plan;
  plan.alphabet = alphabet;
  plan.formula = names ? logic::to_string(root, *names) : logic::to_string(root);
  plan.pe = pe;
  plan.c = c;
  // Comparisons set the schedule (and so the heads' leak) of the whole model.
  for (logic::Formula f : logic::subformulas(root)) plan.counting = plan.counting || f->op == logic::Op::kCompare;
  Builder b(plan);
  add_input_coords(plan, b, root);
  const Test out = FormulaPlanner(plan, b, names, exclusive).build(root);
  plan.output = b.materialize(out, false, "sub:" + text_of(root, names));
  drop_unread(plan);
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
    std::vector<int> values(layers[l].model_heads(), 0);
    for (const PlannedHead& head : layers[l].heads) ++values[head.group];
    for (const PlannedHead& head : layers[l].heads) {
      // "head 2" computes one value; "head 2[1]" is value column 1 of a head that computes several.
      const std::string h = values[head.group] > 1 ? fmt::format("{}[{}]", head.group, head.slot)
                                                   : fmt::format("{}", head.group);
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
      for (int i : op.input_coords()) in.push_back(coords[i]);
      if (op.kind == GlueKind::kSignRound) in[1] = fmt::format("value at BOS {}", op.inputs[1]);
      const std::string what =
          op.kind == GlueKind::kThreshold ? op.expr : fmt::format("{}({})", glue_name(op), fmt::join(in, ", "));
      std::string also;
      for (int a : op.also) also += " + " + coords[a];
      out += fmt::format("  ffn  {} -> {}{}  [{} units]\n", what, coords[op.target], also, op.units());
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
      nlohmann::ordered_json h = {{"kind", kKinds[static_cast<int>(head.kind)]}, {"label", head.label},
                                  {"head", head.group}, {"column", head.slot}};
      if (head.kind == HeadKind::kSince || head.kind == HeadKind::kUntil) h["stop"] = head.stop.describe(coords);
      if (head.kind != HeadKind::kSign) h["value"] = head.value.describe(coords);
      else h["query"] = head.query.describe(coords);
      h["writes"] = coords[head.raw];
      l["heads"].push_back(std::move(h));
    }
    l["ffn"] = nlohmann::ordered_json::array();
    for (const GlueOp& op : layer.ffn) {
      std::vector<std::string> in;
      for (int i : op.input_coords()) in.push_back(coords[i]);
      if (op.kind == GlueKind::kSignRound) in[1] = fmt::format("value at BOS {}", op.inputs[1]);
      nlohmann::ordered_json o = {{"op", glue_name(op)}, {"inputs", in}};
      if (op.kind == GlueKind::kThreshold) {
        o["computes"] = op.expr;
        o["rounds"] = op.form == ThresholdForm::kRho;
      }
      o["writes"] = coords[op.target];
      if (!op.also.empty()) {
        std::vector<std::string> also;
        for (int a : op.also) also.push_back(coords[a]);
        o["adds_to"] = also;
      }
      o["units"] = op.units();
      l["ffn"].push_back(std::move(o));
    }
    j["plan"].push_back(std::move(l));
  }
  j["output"] = coords[output];
  return j;
}

}  // namespace softhat::compile
