// Formula -> layer plan -> weights: the compiled softmax acceptor.
//
// The construction (docs/theory.md, 'Since' and 'Until'; proofs in compile/compiler.cc):
// each temporal subformula is one attention head whose scores are distinct
// multiples of a unit delta (1/(n+1) with bounded position embeddings, 1 with
// unbounded ones), with BOS scoring strictly between the "stop" positions and
// the rest, so the head's target is the nearest stop (rightmost for since,
// leftmost for until) or BOS. With inverse temperature beta = c/delta the
// weight off the target is at most eps = 1/(e^c - 1). The FFN that reads a
// head's output computes the Boolean glue around it and rounds in one step:
// rho(t) = ReLU(2t - 1/2) - ReLU(2t - 3/2) maps [0, 1/4] to 0 and
// [3/4, 1] to 1 exactly, and t sums at most m raw head outputs with the
// glue's exact bits, so m * eps <= 1/4 (c >= ln(4m + 1)) makes every
// Boolean exact after every layer and the transformer's verdict equals the
// formula's at every length. c = 3 (eps <= 0.0524) lets one FFN read up to
// m = 4 heads' outputs (the planner rounds any beyond that first).
#pragma once

#include <string>

#include "compile/plan.h"
#include "model/transformer.h"
#include "util/memory.h"

namespace softhat::compile {

inline constexpr double kDefaultC = 3.0;

struct CompileOptions {
  PeMode pe = PeMode::kBounded;
  double c = kDefaultC;
  const logic::Names* names = nullptr;  // labels for a formula DAG (plan_formula)
  const Exclusive* exclusive = nullptr; // proved exclusivity facts (plan_formula)
  // The most the model's weights may take (--max-memory; 0: no limit),
  // checked before they are allocated.
  std::size_t max_memory = util::kDefaultMaxMemory;
};

struct Compiled {
  Plan plan;
  model::Transformer model;
};

Compiled compile_formula(logic::Formula formula, const std::string& alphabet, const CompileOptions& options = {});

// The weights of a plan; a LimitError (Limit::kMemory) before anything is
// allocated if they would take more than max_memory bytes (0: no limit).
model::Transformer plan_to_model(const Plan& plan, std::size_t max_memory = util::kDefaultMaxMemory);

// Parses --beta: "2", "3*(n+1)", "0.5*(n+1)^2*ln(n+1)", "ln(n+1)".
model::BetaSchedule parse_beta(const std::string& expr);

}  // namespace softhat::compile
