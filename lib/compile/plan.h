// Formula -> layer plan: which head in which layer computes which temporal
// subformula, which FFN computes which Boolean glue, and which residual
// coordinate holds what (docs/theory.md, 'The constructions'; the constructions and
// their bounds are written out in compile/plan.cc where they are used).
//
// Every coordinate an FFN writes holds an exact 0/1 at every position (BOS
// included). Temporal operators are reduced to two heads: since (Y O H S
// first) and until (X F G U last). Boolean glue is kept as an and/or of
// literals until something needs it in a coordinate, so nested Boolean
// operators cost one FFN, and an FFN reads heads' raw outputs directly: the
// rounding that makes a head's output exact again is fused with the glue
// that consumes it. Subformulas shared by several parents are computed once;
// heads whose inputs are ready at the same depth run in parallel in one
// layer.
#pragma once

#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <vector>

#include "logic/formula.h"
#include "logic/print.h"
#include "util/error.h"

namespace softhat::compile {

enum class PeMode { kBounded, kUnbounded };
const char* pe_name(PeMode pe);
PeMode parse_pe(const std::string& name);

// sum of coefficient * coordinate
struct LinearForm {
  std::vector<std::pair<int, double>> terms;
  std::string describe(const std::vector<std::string>& coords) const;
};

// kThreshold: result = [t >= 1] for t = sum_k w_k x_k + bias (integer
// weights), evaluated exactly by `form` (docs/compiler.md, "Boolean glue").
// Every Boolean operation, rounding, and a head's prepared stop and value is
// one. Its inputs are exact bits (embeddings, FFN results) or since/until
// heads' raw outputs, which are within eps of a bit; with raw inputs the
// form rounds (kRho), which is exact while eps * sum |w_raw| <= 1/4.
// kIff: result = [x = y] on exact bits. kSignRound: result = 1 - rho(raw) +
// bos * inputs[1] (the comparison's known value at BOS).
enum class GlueKind { kThreshold, kIff, kSignRound };

enum class ThresholdForm {
  kRelu,      // exact bits, t <= 1 always (and, not): ReLU(t)
  kOneMinus,  // exact bits, t >= 0 always (or): 1 - ReLU(1 - t)
  kClamp,     // exact bits: ReLU(t) - ReLU(t - 1)
  kRho,       // raw head outputs among the inputs: rho(t) = ReLU(2t - 1/2) - ReLU(2t - 3/2)
};

// One FFN computation: writes `target` (a fresh coordinate) from `inputs`.
struct GlueOp {
  GlueKind kind = GlueKind::kThreshold;
  int target = -1;
  std::vector<int> inputs{};  // kIff: {x, y}; kSignRound: {raw, value at BOS}; kThreshold: unused (see terms)
  std::vector<std::pair<int, int>> terms{};  // kThreshold: (coordinate, weight)
  int bias = 0;                            // kThreshold
  ThresholdForm form = ThresholdForm::kRelu;
  int raw_inputs = 0;  // kThreshold: how many since/until heads' raw outputs it reads (kRho when > 0)
  std::string expr{};  // kThreshold: what it computes, e.g. "and(tok:a, !att:Y b)", for `analyze`
  // kThreshold: coordinates the result is added to as well: sums of bits of
  // which at most one is 1 (plan.cc, Builder::summed), each written by the
  // units of its terms.
  std::vector<int> also{};
  int units() const;  // hidden ReLU units it costs
  std::vector<int> input_coords() const;  // the coordinates it reads (kSignRound: {raw, value at BOS})
};

enum class HeadKind {
  kSince,  // strict-future mask, rightmost: the nearest stop before i (Y O H S first)
  kUntil,  // strict-past mask, leftmost: the nearest stop after i (X F G U last)
  kCount,  // future mask, uniform: #phi(i) / (i+1) (average-hard)
  kSign,   // future mask, BOS against the rest: is the query E(i) > 0? (average-hard)
};

struct PlannedHead {
  HeadKind kind = HeadKind::kSince;
  std::string label;
  LinearForm stop;   // since/until: 1 at real positions that stop the search, 0 elsewhere and at BOS
  LinearForm value;  // since/until/count: the event or counted formula, 0 at BOS
  LinearForm query;  // sign: E, a multiple of 1/(i+1) that is never 0
  int raw = -1;      // where the head writes its output
  int result = -1;   // where the rounding FFN writes the exact bit (-1 for counts)
  // The model head of its layer that computes it and its value column there:
  // heads with the same attention (since/until heads of one kind with the
  // same stop, every count head of a layer) are one model head with one
  // value column each, so its scores and softmax are computed once.
  int group = 0;
  int slot = 0;
  bool since() const { return kind == HeadKind::kSince; }
};

struct PlannedLayer {
  std::vector<PlannedHead> heads;  // one per computed value, grouped into model heads by `group`
  std::vector<GlueOp> ffn;
  int model_heads() const;  // the number of groups
};

struct Plan {
  std::string alphabet;
  std::string formula;  // as printed
  PeMode pe = PeMode::kBounded;
  double c = 3.0;  // beta(n) = c (n+1) bounded, c unbounded
  bool counting = false;  // has comparisons: beta(n) = 4 (n+1) ln(n+1) in both modes
  // The bound on a since/until head's raw output's distance from its bit:
  // 1/(e^c - 1), or 1/15 under the comparisons' schedule (beta * delta >=
  // 4 ln 2 for n >= 1). An FFN may read raw outputs whose weights sum to at
  // most 1/(4 eps) and still round exactly.
  double head_leak() const;
  std::vector<std::string> coords;
  int one = -1, bos = -1, zero = -1;
  int pos_fraction = -1, pos_index = -1, pos_length = -1;
  int frac_one = -1;  // 1/(i+1), from a count head over BOS
  std::map<char, int> tokens;
  std::vector<std::pair<int, int>> mod_features;  // (m, first coordinate)
  std::vector<PlannedLayer> layers;
  int output = -1;

  int heads() const;  // model heads (a group of planned heads sharing their attention is one)
  int head_values() const;  // planned heads: the values the model heads compute
  // The most raw head outputs one threshold reads (1 when every head is
  // rounded on its own, 0 without since/until heads): rounding is exact
  // while that many leaks add up to at most 1/4, i.e. beta * delta >=
  // ln(4 m + 1) (compile/acceptor.h, proven_beta).
  int max_raw_inputs() const;
  int ffn_units() const;
  std::string describe() const;  // the printable plan (`softhat analyze`)
  nlohmann::ordered_json to_json() const;  // the same, as analyze --json writes it (docs/json.md)
};

// Groups of subformulas of which at most one holds at any position of any
// word: facts the formula's source has proved (cascade/derive.h, `exclusive`).
using Exclusive = std::vector<std::vector<logic::Formula>>;

// Every formula of the contract compiles (counting terms included).
// With `names`, residual labels write named subformulas by name (formula DAGs
// whose trees would be exponentially large). With `exclusive`, an or of
// members of one group (or of bits implying distinct members) is read as
// their sum where a head reads it; the facts must be true, as the plan
// trusts them.
Plan plan_formula(logic::Formula formula, const std::string& alphabet, PeMode pe, double c,
                  const logic::Names* names = nullptr, const Exclusive* exclusive = nullptr);



}  // namespace softhat::compile
