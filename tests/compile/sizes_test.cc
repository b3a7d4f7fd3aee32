// The catalogue's formula languages compile to the same size as before the
// formula-DAG work (cascade/derive.h and named labels) or smaller: layers,
// heads, residual width and FFN units per language, recorded from the
// compiler at commit 0a227e0 (the structure of plan_formula is unchanged; a
// change that makes any language bigger fails here).
#include <catch2/catch.hpp>

#include "compile/acceptor.h"
#include "lang/catalog.h"

using namespace softhat;

TEST_CASE("compiler: catalogue formula languages are no bigger than before the DAG work", "[compile][cascade]") {
  struct Size {
    const char* name;
    std::size_t layers, heads, width, units;
  };
  const std::vector<Size> before = {
    {"a-at-odd", 2, 1, 10, 3},
    {"a-since-b", 1, 1, 8, 2},
    {"a-then-b", 4, 2, 12, 8},
    {"ab-star", 6, 6, 30, 24},
    {"all-a-then-b", 4, 1, 10, 5},
    {"anbn", 6, 7, 21, 15},
    {"anbncn", 6, 13, 40, 34},
    {"astar-bstar", 5, 2, 12, 7},
    {"b-answered-by-c", 7, 2, 17, 12},
    {"c-flanked", 4, 3, 15, 10},
    {"contains-a", 2, 1, 8, 3},
    {"contains-ab", 4, 2, 12, 6},
    {"contains-ba-next", 4, 2, 13, 8},
    {"dyck-1-depth-2", 10, 7, 38, 33},
    {"dyck-1-prefix", 5, 5, 15, 8},
    {"dyck-1", 5, 7, 20, 15},
    {"ends-ba", 2, 1, 9, 3},
    {"even-length", 0, 0, 7, 0},
    {"first-a", 5, 2, 13, 7},
    {"first-equals-last", 7, 3, 20, 14},
    {"flip-flop", 10, 3, 26, 20},
    {"last-b", 0, 0, 5, 0},
    {"last-not-b", 1, 0, 7, 1},
    {"majority", 2, 4, 10, 3},
    {"mod3-last-a", 1, 0, 9, 1},
    {"no-aa", 5, 2, 14, 8},
    {"prefix-majority", 6, 5, 15, 8},
    {"start-a-until-b", 6, 3, 18, 12},
    {"tail-all-b", 6, 3, 18, 13},
    {"third-last-a", 2, 2, 10, 4},
    {"twice-as-many-a", 3, 5, 13, 7},
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
