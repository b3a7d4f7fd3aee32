#pragma once

// `simulate --program`: a compiled S-RASP program, per input length n, three
// ways: the reference interpreter, the exact average-hard transformer
// (rational scores) and the same weights under softmax at the scheduled
// beta(N) (or a given one). It reports the measured row gap gamma(N) of the
// exact run against the compiler's analytic gaps, head by head, the beta
// used, and the agreement of the three; with `bisect`, the smallest beta at
// which softmax still agrees with the interpreter on every tested word
// (docs/srasp.md, "Softmax at the theorem's temperature").

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "model/config.h"
#include "rasp/compile.h"
#include "rasp/program.h"
#include "util/progress.h"

namespace softhat::rasp {

struct ProgramSimOptions {
  std::vector<std::size_t> lengths;  // input lengths n (N = n + pad(n))
  std::size_t samples = 20;          // random words per length when not exhaustive
  std::uint64_t exhaustive_limit = 2000;
  std::uint64_t seed = 0;
  std::optional<model::BetaSchedule> beta;  // instead of the scheduled beta(N)
  bool bisect = false;
  std::size_t max_memory = 0;  // memory one word may take (engine and interpreter); 0: no limit
  util::Progress* progress = nullptr;  // told of every length done
};

struct ProgramHeadGap {
  int layer = 0, head = 0;
  std::string label;
  double analytic = 0;  // the compiler's gap at N (+inf: a uniform head)
  double measured = 0;  // the exact run's minimum row gap over the words (+inf: every row tied)
};

struct ProgramLength {
  std::size_t n = 0, padded = 0;
  std::uint64_t words = 0;
  bool exhaustive = false;
  double analytic_gap = 0, measured_gap = 0;  // minima over heads
  int gap_layer = -1, gap_head = -1;          // the head attaining the measured minimum
  double beta = 0;                            // the softmax run's beta at N
  std::uint64_t refused = 0;  // words a range flag refused (in every mode alike: never answered wrongly)
  std::uint64_t ahat_agree = 0, softmax_agree = 0;  // equal to the interpreter's output
  std::optional<std::string> first_disagreement;    // a shortest word with a wrong AHAT or softmax output
  std::optional<double> empirical_beta;             // bisect: beta*, or none if even beta fails
  std::vector<ProgramHeadGap> heads;
};

struct ProgramSimulation {
  std::string subject;
  int layers = 0, heads = 0, width = 0;
  std::string schedule;  // the scheduled beta(N), described
  bool bisected = false;  // beta* was searched for
  std::vector<ProgramLength> lengths;
  // Least-squares exponents in M = N + 1 over the lengths with N >= 2:
  // measured gap ~ M^gap_exponent, beta* ~ M^empirical_beta_exponent.
  std::optional<double> gap_exponent, empirical_beta_exponent;
  bool ok() const;  // every answered word agreed in both modes, and the measured gap >= the analytic one
};

ProgramSimulation simulate_program(const Program& program, const CompiledProgram& compiled,
                                   const ProgramSimOptions& options);

std::string format_program_simulation(const ProgramSimulation& sim, bool per_head);
nlohmann::ordered_json program_simulation_json(const ProgramSimulation& sim);

}  // namespace softhat::rasp
