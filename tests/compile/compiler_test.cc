// The compiled transformer against the formula evaluator: random formulas
// (past and future mixed, mod), every word up to length 8, both position-
// embedding modes, softmax and hard attention; the linear scan against the
// blocked path; the fixed-temperature ablation; the plan's sharing.
#include <catch2/catch.hpp>
#include <set>

#include "compile/compiler.h"
#include "lang/catalog.h"
#include "logic/eval.h"
#include "logic/parse.h"
#include "logic/print.h"
#include "logic/random_formula.h"
#include "model/forward.h"
#include "util/random.h"
#include "words/words.h"

using namespace softhat;

using words::all_words;

namespace {
logic::RandomFormulaOptions random_options(const std::string& alphabet, int depth) {
  logic::RandomFormulaOptions o;
  o.alphabet = alphabet;
  o.max_depth = depth;
  return o;
}
}  // namespace

TEST_CASE("compiler: random formulas agree with the evaluator on every word to length 8", "[compile]") {
  const std::vector<std::string> words = all_words("ab", 8);
  std::mt19937_64 rng = derived_rng(17, "compile-random");
  logic::RandomFormulaOptions o = random_options("ab", 4);
  o.modular = true;
  std::set<logic::Op> ops;  // the operators the sample exercised
  for (int k = 0; k < 520; ++k) {
    const logic::Formula f = logic::random_formula(rng, o);
    for (const logic::Formula& g : logic::subformulas(f)) ops.insert(g->op);
    const compile::PeMode pe = k % 2 ? compile::PeMode::kUnbounded : compile::PeMode::kBounded;
    const compile::Compiled c = compile::compile_formula(f, "ab", {pe, compile::kDefaultC});
    const model::Engine engine(c.model);
    model::RunOptions hard;
    hard.mode = model::AttentionMode::kHard;
    for (const std::string& w : words) {
      const bool expected = logic::accepts(f, w);
      const model::RunResult soft = engine.run(w);
      INFO(logic::to_string(f) << " (" << compile::pe_name(pe) << ") on \"" << w << "\"");
      REQUIRE(soft.accepted == expected);
      REQUIRE(soft.output_margin == 0.5);  // every Boolean is exact
      if (k % 5 == 0) REQUIRE(engine.run(w, hard).accepted == expected);
    }
  }
  // The sample is only a proof of the compiler if it reached every operator
  // it compiles: each construction (glue, Y, O, H, S, X, F, G, U, mod, first,
  // last) ran on every word above.
  for (logic::Op op : {logic::Op::kLetter, logic::Op::kNot, logic::Op::kAnd, logic::Op::kOr, logic::Op::kYesterday,
                       logic::Op::kOnce, logic::Op::kHistorically, logic::Op::kSince, logic::Op::kNext,
                       logic::Op::kEventually, logic::Op::kGlobally, logic::Op::kUntil, logic::Op::kMod}) {
    INFO("operator " << static_cast<int>(op));
    CHECK(ops.count(op) == 1);
  }
}

TEST_CASE("compiler: ternary alphabets, longer random words, both modes", "[compile]") {
  std::mt19937_64 rng = derived_rng(23, "compile-long");
  logic::RandomFormulaOptions o;
  o.alphabet = "abc";
  o.max_depth = 4;
  for (int k = 0; k < 60; ++k) {
    const logic::Formula f = logic::random_formula(rng, o);
    for (compile::PeMode pe : {compile::PeMode::kBounded, compile::PeMode::kUnbounded}) {
      const model::Engine engine(compile::compile_formula(f, "abc", {pe, compile::kDefaultC}).model);
      for (std::size_t n : {50, 400}) {
        const std::string w = words::random_word(rng, "abc", n, static_cast<std::uint64_t>(k));
        INFO(logic::to_string(f) << " on a word of length " << n);
        REQUIRE(engine.run(w).accepted == logic::accepts(f, w));
      }
    }
  }
}

TEST_CASE("compiler: the linear scan equals the blocked path on compiled models", "[compile][model]") {
  std::mt19937_64 rng = derived_rng(29, "scan");
  logic::RandomFormulaOptions o;
  o.alphabet = "ab";
  o.max_depth = 3;
  double worst = 0;
  for (int k = 0; k < 40; ++k) {
    const logic::Formula f = logic::random_formula(rng, o);
    const model::Engine engine(
        compile::compile_formula(f, "ab", {k % 2 ? compile::PeMode::kUnbounded : compile::PeMode::kBounded, 3.0}).model);
    const std::string w = words::random_word(rng, "ab", 300, static_cast<std::uint64_t>(k));
    model::RunOptions scan, blocked;
    scan.keep_all_states = blocked.keep_all_states = true;
    scan.trace = blocked.trace = true;
    blocked.linear_scan = false;
    blocked.query_block = 17;
    blocked.key_block = 29;
    const model::RunResult a = engine.run(w, scan), b = engine.run(w, blocked);
    worst = std::max(worst, (a.states - b.states).cwiseAbs().maxCoeff());
    CHECK(a.margins->min_target_mass == Approx(b.margins->min_target_mass).epsilon(1e-12));
    CHECK(a.margins->min_gap == b.margins->min_gap);
    CHECK(a.margins->rows == b.margins->rows);
  }
  CHECK(worst <= 1e-12);
}

TEST_CASE("compiler: a fixed temperature fails at large n, the schedule never does (Hahn)", "[compile]") {
  const logic::Formula f = logic::parse("a S b", "abc");
  const model::Engine engine(compile::compile_formula(f, "abc").model);
  // Adversarial words: "b a^(n-2) c" (accepted: the b is the target, every a
  // competes) and "c b a^(n-3) b"; plus random words.
  auto first_failure = [&](const std::string& beta) {
    model::RunOptions fixed;
    fixed.beta = compile::parse_beta(beta);
    std::mt19937_64 rng = derived_rng(31, "hahn");
    for (std::size_t n = 3; n <= 1000; ++n) {
      for (const std::string& w : {"b" + std::string(n - 2, 'a') + "c", "cb" + std::string(n - 3, 'a') + "b",
                                   words::random_word(rng, "abc", n, n)}) {
        const bool expected = logic::accepts(f, w);
        REQUIRE(engine.run(w).accepted == expected);  // the schedule beta = 3(n+1) never fails
        if (engine.run(w, fixed).accepted != expected) return n;
      }
    }
    return std::size_t{0};
  };
  // beta = 30 is right on every short word (all words to length 7) ...
  model::RunOptions fixed30;
  fixed30.beta = compile::parse_beta("30");
  for (const std::string& w : all_words("abc", 7)) {
    INFO(w);
    REQUIRE(engine.run(w, fixed30).accepted == logic::accepts(f, w));
  }
  // ... and wrong on long ones: the score unit 1/(n+1) shrinks, beta does not.
  const std::size_t n30 = first_failure("30");
  INFO("beta = 30 first fails at n = " << n30);
  CHECK(n30 > 7);
  CHECK(n30 <= 1000);
  // beta = 1 fails almost at once (beta/(n+1) < ln 5 already at n = 1).
  const std::size_t n1 = first_failure("1");
  CHECK(n1 > 0);
  CHECK(n1 <= 10);
}

TEST_CASE("compiler: shared subformulas are computed once, parallel heads share a layer", "[compile]") {
  const logic::Formula f = logic::parse("(b & Y a) | O(b & Y a)", "ab");
  const compile::Plan p = compile::compile_formula(f, "ab").plan;
  int y_heads = 0;
  for (const auto& layer : p.layers) {
    for (const auto& h : layer.heads) y_heads += h.label == "Y a";
  }
  CHECK(y_heads == 1);
  const compile::Plan q = compile::compile_formula(logic::parse("Y a & X b & O a & F b", "ab"), "ab").plan;
  REQUIRE(!q.layers.empty());
  CHECK(q.layers[0].heads.size() == 4);  // four independent heads, one layer
  CHECK(q.describe().find("head 3") != std::string::npos);
}

TEST_CASE("compiler: --beta parses", "[compile]") {
  CHECK(compile::parse_beta("1").describe() == "1");
  CHECK(compile::parse_beta("3*(n+1)").describe() == "3*(n+1)");
  const auto b = compile::parse_beta("0.5 * (n+1)^2 * ln(n+1)");
  CHECK(b.c == 0.5);
  CHECK(b.a == 2);
  CHECK(b.b == 1);
  CHECK_THROWS_WITH(compile::parse_beta("n"), Catch::StartsWith("'n': expected a number at 0"));
  CHECK_THROWS_AS(compile::parse_beta("-1"), InputError);
  CHECK_THROWS_AS(compile::parse_beta(""), InputError);
}

TEST_CASE("compiler: every catalogue formula in the fragment compiles and agrees", "[compile]") {
  const lang::Catalog catalog = lang::Catalog::builtin();
  int checked = 0;
  for (const lang::Language& l : catalog.languages()) {
    if (!l.formula || ((*l.formula)->bits & logic::kCountBit)) continue;
    for (compile::PeMode pe : {compile::PeMode::kBounded, compile::PeMode::kUnbounded}) {
      const model::Engine engine(compile::compile_formula(*l.formula, l.alphabet(), {pe, 3.0}).model);
      for (const std::string& w : all_words(l.alphabet(), words::default_max_len(l.alphabet().size()) - 2)) {
        INFO(l.name() << " " << compile::pe_name(pe) << " \"" << w << "\"");
        REQUIRE(engine.run(w).accepted == logic::accepts(*l.formula, w));
      }
    }
    ++checked;
  }
  CHECK(checked >= 20);
}

// The planner rounds a head's output in the FFN that reads it, together with
// the Boolean glue around it (compile/plan.h): one threshold may sum up to m
// raw outputs, exact while m leaks add up to at most 1/4, i.e. at beta*delta
// >= ln(4m + 1). These run every word at that temperature (a hair above it),
// where a planner that let one FFN read more outputs than its bound allows
// could round wrongly, and require exact Booleans (output margin exactly 1/2).
TEST_CASE("compiler: fused rounding is exact at the proven temperature ln(4m+1)", "[compile]") {
  const std::vector<std::string> words = all_words("ab", 8);
  std::mt19937_64 rng = derived_rng(41, "compile-fused");
  const logic::RandomFormulaOptions o = random_options("ab", 4);
  std::vector<logic::Formula> formulas;
  // Wide conjunctions of heads: six raw outputs meet in one and, more than
  // the four one FFN may read at c = 3.
  for (const char* text : {"Y a & X b & O(b & Y a) & F(a & X a) & !Y Y b & !X X a",
                           "Y a | X b | O(b & Y a) | F(a & X a) | !H b | !G a | (a S Y b)",
                           "O(Y a & X b & !Y b & !X a & O b & F a)"}) {
    formulas.push_back(logic::parse(text, "ab"));
  }
  for (int k = 0; k < 120; ++k) formulas.push_back(logic::random_formula(rng, o));
  int widest = 0;
  for (std::size_t k = 0; k < formulas.size(); ++k) {
    const logic::Formula f = formulas[k];
    const compile::PeMode pe = k % 2 ? compile::PeMode::kUnbounded : compile::PeMode::kBounded;
    const compile::Compiled c = compile::compile_formula(f, "ab", {pe, compile::kDefaultC});
    const int m = c.plan.max_raw_inputs();
    widest = std::max(widest, m);
    REQUIRE(m <= 4);  // 4 / (e^3 - 1) <= 1/4 < 5 / (e^3 - 1)
    model::RunOptions proven;
    const double bd = std::log(4.0 * std::max(m, 1) + 1) * (1 + 1e-6);
    proven.beta = model::BetaSchedule{bd, pe == compile::PeMode::kBounded ? 1.0 : 0.0, 0.0};
    const model::Engine engine(c.model);
    for (const std::string& w : words) {
      INFO(logic::to_string(f) << " (" << compile::pe_name(pe) << ", m = " << m << ") on \"" << w << "\"");
      const model::RunResult r = engine.run(w, proven);
      REQUIRE(r.accepted == logic::accepts(f, w));
      REQUIRE(r.output_margin == 0.5);
    }
  }
  CHECK(widest == 4);  // the wide conjunctions reached the bound
}

TEST_CASE("compiler: comparisons' schedule lets one FFN read at most 3 heads' outputs", "[compile]") {
  // Under beta(n) = 4 (n+1) ln(n+1) a since/until head leaks at most 1/15.
  const logic::Formula f = logic::parse("#a > #b & Y a & X b & O(b & Y a) & F(a & X a) & !Y Y b", "ab");
  const compile::Compiled c = compile::compile_formula(f, "ab");
  CHECK(c.plan.counting);
  CHECK(c.plan.max_raw_inputs() == 3);
  const model::Engine engine(c.model);
  for (const std::string& w : all_words("ab", 9)) {
    INFO(w);
    const model::RunResult r = engine.run(w);
    REQUIRE(r.accepted == logic::accepts(f, w));
    REQUIRE(r.output_margin == 0.5);
  }
}

TEST_CASE("compiler: temporal nesting d deep takes d layers", "[compile]") {
  // Each level: the head, then in the same layer's FFN the glue that reads
  // its output and prepares the next head's stop and value.
  for (const auto& [text, depth] : std::vector<std::pair<std::string, std::size_t>>{
           {"Y a", 1},
           {"O(a & Y b)", 2},
           {"!(a & Y a) & !O(a & Y a) & !(b & Y b) & !O(b & Y b) & !a", 2},
           {"O(a & Y(b & O(a & Y b)))", 4},
           {"F(a & X(b | !F(a & X b)))", 4},
           // A since/until whose stop is an or around an and of a head's output
           // (!a | (b & Y a)) writes the and first: one FFN-only layer.
           {"(a S (b & Y a)) & !(b U (a & X b))", 3}}) {
    const logic::Formula f = logic::parse(text, "ab");
    const compile::Compiled c = compile::compile_formula(f, "ab");
    INFO(text << "\n" << c.plan.describe());
    CHECK(c.plan.layers.size() == depth);
    const model::Engine engine(c.model);
    for (const std::string& w : all_words("ab", 7)) REQUIRE(engine.run(w).accepted == logic::accepts(f, w));
  }
}

namespace {
// The model against the evaluator on every word over `alphabet` up to
// max_len: softmax verdicts with output margin 0.5 (every Boolean exact) and
// hard-attention verdicts.
void check_exact(const model::Transformer& m, logic::Formula f, const std::string& alphabet, std::size_t max_len) {
  const model::Engine engine(m);
  model::RunOptions hard;
  hard.mode = model::AttentionMode::kHard;
  for (const std::string& w : all_words(alphabet, max_len)) {
    INFO("\"" << w << "\"");
    const bool expected = logic::accepts(f, w);
    const model::RunResult soft = engine.run(w);
    REQUIRE(soft.accepted == expected);
    REQUIRE(soft.output_margin == 0.5);
    REQUIRE(engine.run(w, hard).accepted == expected);
  }
}

// Since heads whose value reads bos with weight 1: weak sinces.
int weak_sinces(const compile::Plan& plan) {
  int weak = 0;
  for (const compile::PlannedLayer& l : plan.layers) {
    for (const compile::PlannedHead& h : l.heads) {
      if (h.kind != compile::HeadKind::kSince) continue;
      for (const auto& [coord, w] : h.value.terms) weak += coord == plan.bos && w == 1.0;
    }
  }
  return weak;
}
}  // namespace

TEST_CASE("compiler: a head reads an or of bits that imply distinct letters as their sum", "[compile]") {
  // (a & Y b) and (b & Y c) are written bits that can never both be 1 (their
  // letters differ) and are 0 at BOS: the O head's stop is their sum, so no
  // FFN stage writes the or. With the same letter twice the or is written
  // first: one more layer.
  struct Case {
    const char* text;
    std::size_t layers;
    bool sum;  // the O/H head reads a sum of coordinates
  };
  for (const Case& k : std::vector<Case>{{"O((a & Y b) | (b & Y c))", 2, true},
                                         {"O((a & Y b) | c)", 2, true},
                                         {"b & O((a & Y b) | (b & Y c) | (c & Y a))", 2, true},
                                         {"O((a & Y b) | (a & Y c))", 3, false},
                                         {"O((a & Y b) | (b & Y c) | Y a)", 3, false}}) {
    const logic::Formula f = logic::parse(k.text, "abc");
    for (compile::PeMode pe : {compile::PeMode::kBounded, compile::PeMode::kUnbounded}) {
      const compile::Compiled c = compile::compile_formula(f, "abc", {pe, compile::kDefaultC});
      INFO(k.text << "\n" << c.plan.describe());
      CHECK(c.plan.layers.size() == k.layers);
      const compile::PlannedHead& o = c.plan.layers.back().heads.back();
      CHECK((o.stop.terms.size() > 1) == k.sum);
      for (const auto& [coord, w] : o.stop.terms) CHECK((c.plan.coords[coord].rfind("stop:", 0) == 0) == !k.sum);
      check_exact(c.model, f, "abc", 6);
    }
  }
}

TEST_CASE("compiler: (g S e) | H g is one weak since head (value e + bos)", "[compile]") {
  // The head attends to the last stop (!g | e) before i, or to BOS when
  // there is none, where H g holds: value e there and 1 at BOS. Compared with
  // the evaluator on every word to length 6, softmax and hard, both PE modes.
  for (const char* text : {"(a S b) | H a", "H a | (a S b)", "c & ((!c S (a & Y b)) | H !c)", "((a | b) S c) | H (a | b) | c",
                           "Y((a S b) | H a)"}) {
    const logic::Formula f = logic::parse(text, "abc");
    for (compile::PeMode pe : {compile::PeMode::kBounded, compile::PeMode::kUnbounded}) {
      const compile::Compiled c = compile::compile_formula(f, "abc", {pe, compile::kDefaultC});
      INFO(text << "\n" << c.plan.describe());
      CHECK(weak_sinces(c.plan) == 1);
      check_exact(c.model, f, "abc", 6);
    }
  }
  // Without the pair (H of another guard), no head is weak.
  CHECK(weak_sinces(compile::compile_formula(logic::parse("(a S b) | H c", "abc"), "abc").plan) == 0);
}

TEST_CASE("compiler: O/F operands of one & or | are one head when that is no deeper", "[compile]") {
  // !O p & !O q = !O (p | q), O p | O q = O (p | q), H p & H q = !O (!p | !q),
  // and the future mirrors: one head when the or of the events is a sum
  // (exclusive bits; first and last exclude a since or until head's bit),
  // the separate heads when the merged stop would need one more FFN stage.
  // Every case against the evaluator on every word to length 6.
  struct Case {
    const char* text;
    std::size_t layers, heads;
  };
  for (const Case& k : std::vector<Case>{
           // merged: ab-star's formula, one O head for three
           {"!(first & b) & !O(first & b) & !a & !(a & Y a) & !O(a & Y a) & !(b & Y b) & !O(b & Y b)", 2, 2},
           {"!O(a & Y a) & !O(b & Y b)", 2, 2},
           {"!O(!O true & b) & !O(b & Y b)", 2, 2},  // !O true is first, by the head's event
           {"O(a & Y b) | O(b & Y c) | c", 2, 2},
           {"!F(a & X a) & !F(b & X b) & !F(last & a)", 2, 2},
           {"H !a & H !b", 1, 1},
           // kept: (a & Y b) | (a & Y c) is not a sum (same letter, both later)
           {"!O(a & Y b) & !O(a & Y c)", 2, 3},
       }) {
    const logic::Formula f = logic::parse(k.text, "abc");
    for (compile::PeMode pe : {compile::PeMode::kBounded, compile::PeMode::kUnbounded}) {
      const compile::Compiled c = compile::compile_formula(f, "abc", {pe, compile::kDefaultC});
      INFO(k.text << "\n" << c.plan.describe());
      CHECK(c.plan.layers.size() == k.layers);
      CHECK(static_cast<std::size_t>(c.plan.heads()) == k.heads);
      check_exact(c.model, f, "abc", 6);
    }
  }
}

TEST_CASE("compiler: random groups of O, H, F, G operands with first and last agree with the evaluator", "[compile]") {
  // Random & or | of 2-4 operands, each !O x, O x, H x, !F x, F x or G x,
  // whose events x are random small formulas, often with first or last and
  // a letter: every merge (and every kept group) and the first/last
  // exclusivity against the evaluator on every word to length 6, softmax
  // with margin 0.5 and hard attention, both position-embedding modes.
  std::mt19937_64 rng = derived_rng(29, "compile-merge-groups");
  logic::RandomFormulaOptions o = random_options("ab", 2);
  const std::string alphabet = "ab";
  for (int k = 0; k < 600; ++k) {
    std::vector<logic::Formula> operands;
    const int count = 2 + static_cast<int>(rng() % 3);
    for (int i = 0; i < count; ++i) {
      logic::Formula x = logic::random_formula(rng, o);
      switch (rng() % 4) {
        case 0: x = logic::and_(logic::first(), x); break;
        case 1: x = logic::and_(logic::last(), x); break;
        case 2: x = logic::and_(logic::letter(alphabet[rng() % 2]), x); break;
        default: break;
      }
      switch (rng() % 6) {
        case 0: operands.push_back(logic::not_(logic::once(x))); break;
        case 1: operands.push_back(logic::once(x)); break;
        case 2: operands.push_back(logic::historically(x)); break;
        case 3: operands.push_back(logic::not_(logic::eventually(x))); break;
        case 4: operands.push_back(logic::eventually(x)); break;
        default: operands.push_back(logic::globally(x)); break;
      }
    }
    const logic::Formula f = rng() % 2 ? logic::and_(operands) : logic::or_(operands);
    const compile::PeMode pe = k % 2 ? compile::PeMode::kUnbounded : compile::PeMode::kBounded;
    const compile::Compiled c = compile::compile_formula(f, alphabet, {pe, compile::kDefaultC});
    INFO(logic::to_string(f) << " (" << compile::pe_name(pe) << ")\n" << c.plan.describe());
    check_exact(c.model, f, alphabet, 6);
  }
}

TEST_CASE("compiler: proved exclusivity facts make an or of their members a sum", "[compile]") {
  // p = c & Y a and q = c & Y b imply the same letter, but exclude each
  // other by the letter before; the planner cannot see that, the fact says
  // it. With the fact, O(p | q)'s stop reads p + q (the two written ands),
  // one layer less than writing the or; the verdicts equal the evaluator's.
  const logic::Formula p = logic::parse("c & Y a", "abc"), q = logic::parse("c & Y b", "abc");
  const logic::Formula f = logic::parse("O((c & Y a) | (c & Y b)) & !a", "abc");
  const compile::Exclusive facts{{p, q}};
  const compile::Compiled plain = compile::compile_formula(f, "abc");
  compile::CompileOptions with;
  with.exclusive = &facts;
  const compile::Compiled told = compile::compile_formula(f, "abc", with);
  INFO(plain.plan.describe() << "\n" << told.plan.describe());
  CHECK(told.plan.layers.size() + 1 == plain.plan.layers.size());
  const compile::PlannedHead& o = told.plan.layers.back().heads.back();
  CHECK(o.stop.terms.size() == 2);
  for (const compile::Compiled* c : {&plain, &told}) check_exact(c->model, f, "abc", 6);
}

TEST_CASE("compiler: a head reads a sum of 4 or more written exclusive bits through one sum coordinate", "[compile]") {
  // The letter before position i is a, b or c, or there is none: the four
  // ands exclude each other (a proved fact here by construction). The O
  // head's stop is then one coordinate that the four ands' units also write
  // (GlueOp::also); the verdicts equal the evaluator's.
  const std::vector<const char*> members{"c & Y a", "c & Y b", "c & Y c", "c & first"};
  compile::Exclusive facts(1);
  for (const char* m : members) facts[0].push_back(logic::parse(m, "abc"));
  const logic::Formula f = logic::parse("O((c & Y a) | (c & Y b) | (c & Y c) | (c & first)) & !a", "abc");
  compile::CompileOptions with;
  with.exclusive = &facts;
  const compile::Compiled c = compile::compile_formula(f, "abc", with);
  INFO(c.plan.describe());
  const compile::PlannedHead& o = c.plan.layers.back().heads.back();
  REQUIRE(o.stop.terms.size() == 1);
  const int sum = o.stop.terms[0].first;
  CHECK(c.plan.coords[sum].rfind("sum:", 0) == 0);
  int writers = 0;
  for (const compile::PlannedLayer& l : c.plan.layers) {
    for (const compile::GlueOp& op : l.ffn) writers += std::count(op.also.begin(), op.also.end(), sum);
  }
  CHECK(writers == 4);
  check_exact(c.model, f, "abc", 7);
}

namespace {
// The same weights with every value column of a head as a head of its own
// (copies of the query and key): the model the compiler wrote before heads
// that share their attention became one.
model::Transformer split_heads(const model::Transformer& t) {
  model::ModelConfig cfg = t.config;
  for (model::LayerConfig& lc : cfg.layers) {
    std::vector<model::HeadConfig> heads;
    for (const model::HeadConfig& hc : lc.heads) {
      for (int c = 0; c < hc.d_value; ++c) {
        model::HeadConfig one = hc;
        one.d_value = 1;
        heads.push_back(one);
      }
    }
    lc.heads = heads;
  }
  model::Transformer s = model::Transformer::zeros(cfg);
  s.embed = t.embed;
  s.pos_proj = t.pos_proj;
  for (std::size_t l = 0; l < t.layers.size(); ++l) {
    const model::LayerWeights& from = t.layers[l];
    model::LayerWeights& to = s.layers[l];
    to.fc1 = from.fc1;
    to.b1 = from.b1;
    to.fc2 = from.fc2;
    to.b2 = from.b2;
    std::size_t k = 0;
    for (const model::HeadWeights& h : from.heads) {
      for (Eigen::Index c = 0; c < h.v.rows(); ++c, ++k) {
        to.heads[k].q = h.q;
        to.heads[k].k = h.k;
        to.heads[k].v = h.v.row(c);
        to.heads[k].o = h.o.col(c);
      }
    }
  }
  return s;
}
}  // namespace

TEST_CASE("compiler: heads with the same attention are one head with a value column each", "[compile]") {
  // Y a, Y b, Y true share a query and key (stop = one - bos), as do X a and
  // X b; O a, O b and a S b have stops of their own; count heads share the
  // uniform attention.
  const logic::Formula f =
      logic::parse("(Y a & !Y b & !first) | (X a & X b) | (O a & O b & (a S b)) | #a < #b", "ab");
  const compile::Compiled c = compile::compile_formula(f, "ab");
  INFO(c.plan.describe());
  REQUIRE(!c.plan.layers.empty());
  const compile::PlannedLayer& l0 = c.plan.layers[0];
  CHECK(l0.heads.size() > static_cast<std::size_t>(l0.model_heads()));
  // Model heads: since {Y a, Y b, Y true}, until {X a, X b}, O a, O b, a S b,
  // count {#bos, #a, #b} in layer 0.
  CHECK(l0.model_heads() == 6);
  CHECK(c.model.config.layers[0].heads.size() == 6);
  int widest = 0;
  for (const model::HeadConfig& hc : c.model.config.layers[0].heads) widest = std::max(widest, hc.d_value);
  CHECK(widest == 3);
  CHECK(c.plan.describe().find("[2] since") != std::string::npos);  // the third value column of the Y head
  // The split model computes the same residual stream, bit for bit, on the
  // scan and on the blocked path, and the verdicts are the formula's.
  const model::Transformer split = split_heads(c.model);
  const model::Engine shared(c.model), apart(split);
  std::mt19937_64 rng = derived_rng(41, "shared-heads");
  std::vector<std::string> words = all_words("ab", 7);
  for (std::size_t n : {40, 300}) words.push_back(words::random_word(rng, "ab", n, n));
  for (bool scan : {true, false}) {
    model::RunOptions o;
    o.keep_all_states = true;
    o.linear_scan = scan;
    for (const std::string& w : words) {
      INFO(w << (scan ? " (scan)" : " (blocked)"));
      const model::RunResult a = shared.run(w, o), b = apart.run(w, o);
      REQUIRE(a.accepted == logic::accepts(f, w));
      REQUIRE(a.states == b.states);
    }
  }
}
