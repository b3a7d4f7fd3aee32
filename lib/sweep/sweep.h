// softhat sweep: how small must the temperature be, really? For each length
// n, the smallest inverse temperature beta*(n) at which every decision on a
// fixed, seeded word set agrees with the oracle (bisection on a log scale,
// to 1% relative), next to the beta(n) the model's schedule uses and the
// beta(n) the construction proves (compile::proven_beta, or the AHAT
// theorem's where the construction has no closed form), and the growth of
// beta*(n) fitted against n.
//
// beta* is empirical: a word set can only show that a smaller beta fails,
// so beta* is a lower bound on what every word of the length needs.
// Bisection assumes agreement is monotone in beta on the word set (checked
// at the two bracketing ends, not in between).
#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "compile/compiler.h"
#include "lang/language.h"
#include "model/forward.h"
#include "util/progress.h"
#include "util/random.h"
#include "util/verdict.h"
#include "words/source.h"

namespace softhat::sweep {

struct SweepOptions {
  std::vector<std::size_t> lengths;
  double tolerance = 0.01;  // relative width of the final bisection bracket
  util::Progress* progress = nullptr;  // told of every length done
  std::size_t max_memory = 0;  // engine memory one word may take (0: no limit)
  // The schedule to judge (sweep --beta) instead of the model's own. The
  // search for beta* still starts from the model's schedule.
  std::optional<model::BetaSchedule> schedule;
};

// The expected verdict of a word (accept/reject, or a transducer's output);
// the tested words at each length are a words::WordsAt.
using Oracle = std::function<Verdict(const std::string&)>;
// The proven beta at n for the given words and where it comes from
// ("construction" or "theorem"); nullopt if none.
struct Proven {
  double beta;
  std::string source;
};
using ProvenBeta = std::function<std::optional<Proven>(std::size_t n, const std::vector<std::string>& words)>;

struct SweepRow {
  std::size_t n = 0;
  std::size_t words = 0;
  std::optional<double> empirical;  // beta*; nullopt: agreement at every beta tried (beta-independent)
  bool fails_everywhere = false;    // not even the model's schedule's beta (x 64) agrees
  double schedule = 0;              // the schedule's beta(n): the model's, or SweepOptions::schedule
  bool schedule_agrees = false;     // every decision right at the schedule's beta
  std::optional<double> proven;     // the construction's (or the theorem's) beta(n)
  std::string proven_source;        // "construction", "theorem", or empty
};

struct Fit {
  std::string form;  // "c", "c*ln(n+1)", "c*(n+1)", "c*(n+1)*ln(n+1)", "c*(n+1)^2"
  double c = 0;
  double rms = 0;  // root mean square of log residuals
};

struct SweepReport {
  std::string subject;
  std::string pe;
  std::string schedule;  // the schedule judged: "3*(n+1)"; with SweepOptions::schedule "--beta 3*(n+1)"
  std::vector<SweepRow> rows;
  std::optional<double> exponent;  // least-squares slope of log beta* against log(n+1)
  std::vector<Fit> fits;           // every form, best (smallest rms) first
};

SweepReport sweep(const model::Transformer& model, const words::WordsAt& words, const Oracle& oracle,
                  const ProvenBeta& proven, const SweepOptions& options);

// The word sets and bounds a sweep uses (softhat sweep's options).
struct WordPlan {
  std::size_t words = 40;        // seeded words per length (border positives and near misses for a language)
  bool adversarial = true;       // plus runs, blocking symbols, periodic words
  std::size_t exact_limit = 512;  // the AHAT theorem's beta (exact runs) up to this length, where needed
  std::uint64_t seed = kDefaultSeed;
};

// A sweep of a language's (or task's) transformer against its oracle, with
// the construction's proven beta (or the theorem's); language null: a bare
// model against its own average-hard run.
SweepReport sweep_subject(const model::Transformer& model, const lang::Language* language,
                          const compile::CompileOptions& compile, const SweepOptions& options, const WordPlan& plan);

std::string format_sweep_report(const SweepReport& report);
nlohmann::ordered_json sweep_report_json(const SweepReport& report);
// A log-log plot of beta*(n), the schedule and the proven beta against n+1.
std::string sweep_svg(const SweepReport& report);

}  // namespace softhat::sweep
