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
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "model/config.h"
#include "rasp/compile.h"
#include "rasp/oracles.h"
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

// `verify --program`: every word up to max_len and `samples` random words of
// lengths drawn from a list, each run four ways: the direct oracle (if
// there is one), the interpreter, the exact AHAT and softmax at the scheduled
// beta(N). A word passes when all outputs are equal (a word a range flag
// refuses passes if the oracle and interpreter agree: the model refused it,
// in every mode, rather than answer) and every head's exact gap is at least
// the compiler's analytic gap at its N.
struct ProgramCheckOptions {
  std::optional<std::size_t> max_len;  // default: 6, or 5 for alphabets of more than 4 symbols
  // Each random word's length is drawn uniformly from this list; empty: 20-100,
  // or 20-40 for padded programs (N = n^2 makes their words long).
  std::vector<std::size_t> random_lengths;
  std::size_t samples = 200;  // random words
  std::uint64_t seed = 0;
  std::size_t max_memory = 0;
  int threads = 1;  // words checked in parallel; the check does not depend on it
  util::Progress* progress = nullptr;  // told of every word set done
};

struct ProgramCheckRow {
  std::string set;  // "all words of length 3", "200 random words of lengths 20-100"
  std::size_t max_padded = 0;
  double beta_min = 0, beta_max = 0;  // the scheduled beta over the set's N
  std::uint64_t words = 0, refused = 0;
  std::uint64_t oracle_agree = 0;  // interpreter equal to the oracle (all words; 0 without an oracle)
  std::uint64_t ahat_agree = 0, softmax_agree = 0;  // equal to the reference (oracle, or interpreter without one)
  std::uint64_t gap_short = 0;  // words on which some head's exact gap fell below its analytic gap
  double min_gap_ratio = std::numeric_limits<double>::infinity();  // measured / analytic, over heads and words
  std::optional<std::string> first_failure;  // a shortest failing word
  std::string failure;                       // what failed on it
};

struct ProgramCheck {
  std::string subject, oracle;  // oracle: its name, or "" (the interpreter is the reference)
  int layers = 0, heads = 0, width = 0;
  std::string schedule;
  std::vector<ProgramCheckRow> rows;
  bool ok() const;
};

ProgramCheck verify_program(const Program& program, const CompiledProgram& compiled, const std::string& oracle_name,
                            const ProgramCheckOptions& options);
std::string format_program_check(const ProgramCheck& check);
nlohmann::ordered_json program_check_json(const ProgramCheck& check);

}  // namespace softhat::rasp
