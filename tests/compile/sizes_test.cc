// The catalogue's formula languages compile to these sizes or smaller:
// layers, heads, residual width and FFN units per language, recorded from
// the planner that keeps Boolean glue as and/or tests and rounds heads'
// outputs in the FFN that reads them (compile/plan.h). A change that makes
// any language bigger fails here. Before that planner (commit 8d217e3) the
// same languages took 131 layers and 294 FFN units, ab-star
// 6 layers and flip-flop 10. Heads that share their attention became one head
// with a value column each (plan.h): 95 heads in all before, 75 now. A head
// reads an or of bits that imply distinct letters as their sum (plan.cc,
// affine): 63 layers and 168 units before, 61 and 166 now (flip-flop 3 layers
// to 2, dyck-1-depth-2 4 to 3). Operands !O p & !O q of one & are one head
// !O (p | q) when that is no deeper (plan.cc, merge_reachability), with first
// known to exclude a since head's bit: ab-star 4 heads to 2, dyck-1-depth-2
// 5 to 3.
#include <catch2/catch.hpp>

#include "compile/acceptor.h"
#include "compile/compiler.h"
#include "lang/catalog.h"
#include "logic/parse.h"
#include "model/transformer.h"
#include "util/error.h"

using namespace softhat;

TEST_CASE("compiler: catalogue formula languages are no bigger than recorded", "[compile][cascade]") {
  struct Size {
    const char* name;
    std::size_t layers, heads, width, units;
  };
  const std::vector<Size> before = {
    {"a-at-odd", 2, 1, 10, 3},
    {"a-since-b", 1, 1, 8, 2},
    {"a-then-b", 2, 2, 9, 4},
    {"ab-star", 2, 2, 13, 8},
    {"all-a-then-b", 1, 1, 7, 2},
    {"anbn", 3, 5, 16, 10},
    {"anbncn", 3, 10, 30, 25},
    {"astar-bstar", 2, 2, 9, 4},
    {"b-answered-by-c", 2, 2, 11, 6},
    {"c-flanked", 2, 3, 11, 4},
    {"contains-a", 1, 1, 7, 2},
    {"contains-ab", 2, 2, 9, 4},
    {"contains-ba-next", 2, 2, 9, 4},
    {"dyck-1-depth-2", 3, 3, 17, 14},
    {"dyck-1-prefix", 3, 3, 12, 5},
    {"dyck-1", 3, 5, 16, 11},
    {"ends-ba", 1, 1, 7, 2},
    {"even-length", 0, 0, 7, 0},
    {"first-a", 2, 2, 9, 4},
    {"first-equals-last", 4, 3, 15, 11},
    {"flip-flop", 2, 2, 14, 6},
    {"last-b", 0, 0, 5, 0},
    {"last-not-b", 1, 0, 7, 1},
    {"majority", 2, 2, 10, 3},
    {"mod3-last-a", 1, 0, 9, 1},
    {"no-aa", 2, 2, 9, 4},
    {"prefix-majority", 3, 3, 12, 5},
    {"start-a-until-b", 2, 3, 12, 6},
    {"tail-all-b", 2, 3, 10, 4},
    {"third-last-a", 2, 2, 9, 4},
    {"twice-as-many-a", 3, 3, 13, 7},
  };
  const lang::Catalog catalog = lang::Catalog::builtin();
  for (const Size& s : before) {
    INFO(s.name);
    const lang::Language& l = catalog.find(s.name);
    REQUIRE(l.formula.has_value());
    const compile::Compiled c = compile::compile_formula(*l.formula, l.alphabet());
    CHECK(c.plan.layers.size() <= s.layers);
    CHECK(static_cast<std::size_t>(c.plan.heads()) <= s.heads);
    CHECK(c.plan.coords.size() <= s.width);
    CHECK(static_cast<std::size_t>(c.plan.ffn_units()) <= s.units);
  }
}

TEST_CASE("compiler: the weights are checked against max_memory before they are allocated", "[compile]") {
  const logic::Formula f = logic::parse("#a > 1 | mod(5,2)", {.alphabet = "ab"});
  const compile::Compiled small = compile::compile_formula(f, "ab");
  const std::size_t need = sizeof(double) * model::Transformer::parameter_count(small.model.config);
  std::size_t stored = 0;
  model::for_each_tensor(small.model, [&](const auto& t) { stored += sizeof(double) * t.size(); });
  CHECK(need == stored);  // the estimate is the model's bytes exactly
  compile::CompileOptions o;
  o.max_memory = need;  // exactly enough
  CHECK(compile::compile_formula(f, "ab", o).model.config.d_model == small.model.config.d_model);
  o.max_memory = need - 1;
  try {
    compile::compile_formula(f, "ab", o);
    FAIL("one byte below the model's weights compiled");
  } catch (const LimitError& e) {
    CHECK(e.limit() == Limit::kMemory);
    CHECK_THAT(e.what(), Catch::Contains("the compiled model (") && Catch::Contains("over the limit of"));
  }
  // mod(111111, 0) in a counting formula (so no DFA limit stops it first):
  // 111,111 coordinates and position features, about 92 GiB of position
  // projection under the default 8 GiB, refused before anything is allocated
  // (a fuzzer's 64-byte input once reached the allocation).
  const logic::Formula big = logic::parse("#a > 1 | mod(111111,0)", {.alphabet = "ab"});
  CHECK_THROWS_AS(compile::compile_formula(big, "ab"), LimitError);
}
