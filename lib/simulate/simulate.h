// softhat simulate: an average-hard transformer (AHAT) and the same weights
// under softmax (the paper's part 2, docs/theory.md, 'From average-hard to softmax'; the bound in
// model/temperature_bound.h, derived in docs/simulate.md).
//
// Per length n: every word of the length when there are few enough
// (exhaustive: gamma-hat is the true gap gamma(n)), else seeded sampled and
// adversarial words (gamma-hat is then only an upper bound on gamma(n)).
// Each word is run through the exact AHAT (model/exact_ahat.h); the minimum
// row gap, the largest state and value norms and the smallest output margin
// give the theorem's beta(n) for eps (default: half the smallest AHAT output
// margin, so that decisions must agree); then every word runs under softmax
// at that beta (or at --beta), and the report gives the largest distance
// between the two final residual streams and the decision agreement with the
// AHAT and with the oracle (when there is one).
#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "model/exact_ahat.h"
#include "model/forward.h"
#include "model/temperature_bound.h"
#include "util/progress.h"
#include "util/random.h"
#include "util/verdict.h"
#include "words/source.h"

namespace softhat::simulate {

// An independent verdict (oracle), if any: accept/reject for acceptors, the
// output for transducers (model config `transducer`).
using Oracle = std::function<Verdict(const std::string&)>;

struct SimulateOptions {
  std::vector<std::size_t> lengths;
  std::optional<double> epsilon;               // target final-state error; default: half the min AHAT margin
  std::optional<model::BetaSchedule> beta;     // run softmax at this schedule instead of the theorem's beta
  bool bisect = false;  // also find the smallest beta at which every tested decision agrees (beta*)
  util::Progress* progress = nullptr;  // told of every length done (the caller adds lengths.size() to its total)
  std::size_t max_memory = 0;  // memory one word may take, engine and exact run (0: no limit)
};

struct LengthReport {
  std::size_t n = 0;
  std::uint64_t words = 0;
  bool exhaustive = false;
  double gap = model::kNoGap;  // gamma-hat(n): min over words, heads and rows
  int gap_layer = -1, gap_head = -1;  // the head that attains it
  std::vector<model::HeadGap> heads;  // per head, merged over the words
  double min_ahat_margin = model::kNoGap;
  double epsilon = 0;
  double theorem_beta = 0;   // 0 if not found
  bool theorem_found = false;
  double beta = 0;           // the beta the softmax run used
  double bound = 0;          // the theorem's bound on the final error at that beta (inf if side conditions fail)
  double max_state_diff = 0;  // max over words and positions of |x_softmax - x_ahat|_2 (final layer)
  std::uint64_t agree_ahat = 0;    // softmax decision == AHAT decision (transducers: the whole output)
  std::int64_t ahat_oracle = -1;   // AHAT decisions equal to the oracle (-1: no oracle)
  std::int64_t softmax_oracle = -1;
  std::optional<std::string> first_disagreement;  // a shortest word where softmax and AHAT differ
  // --bisect: the smallest beta (within 1%, log-scale bisection below the
  // theorem's beta) at which softmax agrees with the AHAT on every tested
  // word; empirical, so a lower bound on what all words of the length need.
  std::optional<double> empirical_beta;
};

struct SimulateReport {
  std::string subject;  // language or model file
  int layers = 0, heads = 0, width = 0;
  std::vector<LengthReport> lengths;
  // Least-squares exponents over the lengths n >= 2 with a finite gap:
  // gamma-hat(n) ~ C (n+1)^gap_exponent, theorem beta(n) ~ C' (n+1)^beta_exponent.
  std::optional<double> gap_exponent, beta_exponent;
  bool ok() const;  // every decision agreed (AHAT = softmax = oracle)
};

// An empty gap profile for the model at length n, and one exact run folded
// into it (maxima of norms, minima of gaps).
model::GapProfile empty_profile(const model::Transformer& model, std::size_t n);
void add_to_profile(model::GapProfile& profile, const model::ExactRun& run);

// The theorem's beta at length n for the given words (exact AHAT runs;
// eps = half the smallest AHAT margin); nullopt if no beta meets the bound.
std::optional<double> theorem_beta_on(const model::Transformer& model, const std::vector<std::string>& words,
                                      std::size_t n);

// The least-squares slope of log y against log x (nullopt with fewer than two points).
std::optional<double> loglog_slope(const std::vector<double>& x, const std::vector<double>& y);

SimulateReport simulate(const model::Transformer& model, const words::WordsAt& words, const Oracle* oracle,
                        const SimulateOptions& options);

// Default word sets for a model without a language: every word when
// |alphabet|^n <= exhaustive_limit, else `samples` seeded random words plus
// adversarial families (constant runs, a single different symbol at either
// end, periodic words).
words::WordSource model_words(const std::string& alphabet, std::size_t n, std::size_t samples, std::uint64_t exhaustive_limit,
                    std::uint64_t seed);

std::string format_simulate_report(const SimulateReport& report);
std::string simulate_legend();  // what the table's columns mean
nlohmann::ordered_json simulate_report_json(const SimulateReport& report);

}  // namespace softhat::simulate
