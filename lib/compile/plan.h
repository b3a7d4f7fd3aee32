// Formula -> layer plan: which head in which layer computes which temporal
// subformula, which FFN computes which Boolean glue, and which residual
// coordinate holds what (paper-digest.md §3.4-3.6; the constructions and
// their bounds are written out in compile/plan.cc where they are used).
//
// Every Boolean subformula has its own residual coordinate holding an exact
// 0/1 at every position (BOS included). Temporal operators are reduced to two
// heads: since (Y O H S first) and until (X F G U last); Boolean glue and the
// rounding that makes each head's output exact again live in the FFNs.
// Subformulas shared by several parents are computed once; heads whose
// inputs are ready at the same depth run in parallel in one layer.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "logic/formula.h"
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

enum class GlueKind { kNot, kAnd, kOr, kImplies, kIff, kRound, kStop, kValue };

// One FFN computation: writes `target` (a fresh coordinate) from `inputs`.
struct GlueOp {
  GlueKind kind;
  int target;
  std::vector<int> inputs;  // kStop: {guard, event}; kValue: {event}; kRound: {raw}
  int units() const;        // hidden ReLU units it costs
};

struct PlannedHead {
  bool since;  // since (strict-future mask, rightmost) or until (strict-past, leftmost)
  std::string label;
  LinearForm stop;   // 1 at real positions that stop the search, 0 elsewhere and at BOS
  LinearForm value;  // the event, 0 at BOS
  int raw = -1;      // where the head writes its (nearly 0/1) output
  int result = -1;   // where the rounding FFN writes the exact bit
};

struct PlannedLayer {
  std::vector<PlannedHead> heads;
  std::vector<GlueOp> ffn;
};

struct Plan {
  std::string alphabet;
  std::string formula;  // as printed
  PeMode pe = PeMode::kBounded;
  double c = 3.0;  // beta(n) = c (n+1) bounded, c unbounded
  std::vector<std::string> coords;
  int one = -1, bos = -1, zero = -1;
  int pos_fraction = -1, pos_index = -1, pos_length = -1;
  std::map<char, int> tokens;
  std::vector<std::pair<int, int>> mod_features;  // (m, first coordinate)
  std::vector<PlannedLayer> layers;
  int output = -1;

  int heads() const;
  int ffn_units() const;
  std::string describe() const;  // the printable plan (`softhat analyze`)
};

// A formula outside the fragment the compiler handles (exit status 2).
class FragmentError : public InputError {
 public:
  using InputError::InputError;
};

// Throws FragmentError for formulas outside the compiled fragment.
Plan plan_formula(logic::Formula formula, const std::string& alphabet, PeMode pe, double c);



}  // namespace softhat::compile
