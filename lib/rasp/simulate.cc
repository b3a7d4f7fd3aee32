#include "rasp/simulate.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <memory>
#include <random>
#include <stdexcept>

#include "model/exact_ahat.h"
#include "model/forward.h"
#include "simulate/simulate.h"
#include "util/error.h"
#include "util/interrupt.h"
#include "util/parallel.h"
#include "util/symbols.h"
#include "words/words.h"

namespace softhat::rasp {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

bool shorter(const std::string& a, const std::string& b) { return a.size() < b.size() || (a.size() == b.size() && a < b); }

// One word's three outputs; nullopt where a range flag refused it.
struct Outputs {
  std::string interpreted;
  std::optional<std::string> exact;
  model::ExactRun run;
};

// The model's shape, as ProgramSimulation and ProgramCheck both report it.
template <class Report>
void fill_shape(Report& r, const model::ModelConfig& cfg, const model::BetaSchedule& beta) {
  r.layers = static_cast<int>(cfg.layers.size());
  for (const auto& layer : cfg.layers) r.heads += static_cast<int>(layer.heads.size());
  r.width = cfg.d_model;
  r.schedule = beta.describe();
}
template <class Report>
void shape_json(nlohmann::ordered_json& j, const Report& r) {
  j["layers"] = r.layers;
  j["heads"] = r.heads;
  j["width"] = r.width;
  j["beta_schedule"] = r.schedule;
}
nlohmann::ordered_json finite_or_null(double v) { return std::isfinite(v) ? nlohmann::ordered_json(v) : nullptr; }

std::string num(double v) {
  if (std::isinf(v)) return "inf";
  return fmt::format("{:.3g}", v);
}

class Simulator {
 public:
  Simulator(const Program& p, const CompiledProgram& c, const ProgramSimOptions& o)
      : program_(p), compiled_(c), options_(o), ahat_(c.model), engine_(c.model), runner_(engine_) {
    const std::size_t per_position = 32 * (p.statements.size() + 1);
    max_positions_ = o.max_memory == 0 ? std::numeric_limits<std::size_t>::max() : o.max_memory / per_position;
  }

  // N for an input of length n, refused past the memory limit.
  std::size_t padded_length(std::size_t n) const {
    const std::size_t padded = program_.length_with_padding(n);
    if (padded > max_positions_) {
      throw LimitError(fmt::format("length {} runs on N = {} positions, more than the memory limit allows", n, padded),
                       Limit::kMemory);
    }
    return padded;
  }

  ProgramLength length(std::size_t n) {
    ProgramLength r;
    r.n = n;
    r.padded = padded_length(n);
    const words::WordSource set =
        simulate::model_words(program_.alphabet, n, options_.samples, options_.exhaustive_limit, options_.seed);
    r.exhaustive = set.complete;
    const std::vector<std::string> words = set.all();
    r.words = words.size();
    const auto padded = static_cast<std::int64_t>(r.padded);
    const model::BetaSchedule beta = options_.beta.value_or(compiled_.model.config.beta);
    r.beta = beta.at(padded);
    for (const HeadGap& g : compiled_.gaps) r.heads.push_back({g.layer, g.head, g.label, g.at(padded), kInf});
    std::vector<Outputs> outs;
    for (const std::string& w : words) {
      throw_if_interrupted();
      Outputs o;
      o.interpreted = run_program(program_, w, max_positions_);
      try {
        o.exact = exact_transduction(ahat_, compiled_.model.config, w, &o.run);
      } catch (const std::invalid_argument&) {  // a range flag: the model refuses, never answers wrongly
        ++r.refused;
        outs.push_back(std::move(o));
        continue;
      }
      for (std::size_t h = 0; h < r.heads.size() && h < o.run.heads.size(); ++h) {
        r.heads[h].measured = std::min(r.heads[h].measured, o.run.heads[h].gap);
      }
      const bool exact_ok = *o.exact == o.interpreted;
      const bool soft_ok = softmax_agrees(w, o.interpreted, beta);
      r.ahat_agree += exact_ok;
      r.softmax_agree += soft_ok;
      if ((!exact_ok || !soft_ok) && (!r.first_disagreement || shorter(w, *r.first_disagreement))) {
        r.first_disagreement = w;
      }
      outs.push_back(std::move(o));
    }
    r.analytic_gap = r.measured_gap = kInf;
    for (const ProgramHeadGap& h : r.heads) {
      r.analytic_gap = std::min(r.analytic_gap, h.analytic);
      if (h.measured < r.measured_gap) {
        r.measured_gap = h.measured;
        r.gap_layer = h.layer;
        r.gap_head = h.head;
      }
    }
    if (options_.bisect) r.empirical_beta = bisect(words, outs, beta.at(padded));
    return r;
  }

  // One word of `verify --program`, tallied into `row`.
  void check(const std::string& w, const ProgramOracle* oracle, ProgramCheckRow& row) {
    throw_if_interrupted();
    const std::size_t padded = padded_length(w.size());
    const auto n = static_cast<std::int64_t>(padded);
    const model::BetaSchedule& beta = compiled_.model.config.beta;
    const double b = beta.at(n);
    row.beta_min = row.words == 0 ? b : std::min(row.beta_min, b);
    row.beta_max = row.words == 0 ? b : std::max(row.beta_max, b);
    row.max_padded = std::max(row.max_padded, padded);
    ++row.words;
    std::string failed;
    auto fail = [&failed](const char* what) { failed += failed.empty() ? what : std::string(", ") + what; };
    const std::string interpreted = run_program(program_, w, max_positions_);
    std::string reference = interpreted;
    if (oracle) {
      reference = sym::declare((*oracle)(sym::encode(w)));
      if (reference == interpreted) ++row.oracle_agree;
      else fail("interpreter");
    }
    model::ExactRun run;
    std::optional<std::string> exact;
    try {
      exact = exact_transduction(ahat_, compiled_.model.config, w, &run);
    } catch (const std::invalid_argument&) {  // a range flag: refused in every mode, never answered wrongly
      ++row.refused;
    }
    if (exact) {
      if (*exact == reference) ++row.ahat_agree;
      else fail("AHAT");
      if (softmax_agrees(w, reference, beta)) ++row.softmax_agree;
      else fail("softmax");
      bool short_gap = false;
      for (std::size_t h = 0; h < compiled_.gaps.size() && h < run.heads.size(); ++h) {
        const double analytic = compiled_.gaps[h].at(n), measured = run.heads[h].gap;
        if (!std::isfinite(analytic)) continue;
        row.min_gap_ratio = std::min(row.min_gap_ratio, measured / analytic);
        short_gap = short_gap || measured < analytic * (1 - 1e-12);
      }
      if (short_gap) {
        ++row.gap_short;
        fail("gap below the analytic table");
      }
    }
    if (!failed.empty() && (!row.first_failure || shorter(w, *row.first_failure))) {
      row.first_failure = w;
      row.failure = failed;
    }
  }

 private:
  bool softmax_agrees(const std::string& w, const std::string& expected, const model::BetaSchedule& beta) {
    model::RunOptions opt;
    opt.mode = model::AttentionMode::kSoftmax;
    opt.beta = beta;
    opt.max_memory = options_.max_memory;
    try {
      return runner_.run(w, opt).output == expected;
    } catch (const std::invalid_argument&) {  // a range flag raised by softmax noise alone
      return false;
    } catch (const std::runtime_error&) {  // no finite score, or an overflowing stream
      return false;
    }
  }

  // The smallest beta (within 1%, log-scale bisection in [1, hi]) at which
  // softmax agrees with the interpreter on every word the AHAT answered.
  std::optional<double> bisect(const std::vector<std::string>& words, const std::vector<Outputs>& outs, double hi) {
    auto all_agree = [&](double b) {
      for (std::size_t k = 0; k < words.size(); ++k) {
        throw_if_interrupted();
        if (outs[k].exact && !softmax_agrees(words[k], outs[k].interpreted, model::BetaSchedule{b, 0, 0})) return false;
      }
      return true;
    };
    if (!all_agree(hi)) return std::nullopt;
    double lo = 1.0;
    if (all_agree(lo)) return lo;
    while (hi / lo > 1.01) {
      const double mid = std::sqrt(lo * hi);
      (all_agree(mid) ? hi : lo) = mid;
    }
    return hi;
  }

  const Program& program_;
  const CompiledProgram& compiled_;
  const ProgramSimOptions& options_;
  model::ExactAhat ahat_;
  model::Engine engine_;
  model::Runner runner_;
  std::size_t max_positions_ = 0;
};

}  // namespace

bool ProgramSimulation::ok() const {
  for (const ProgramLength& r : lengths) {
    const std::uint64_t answered = r.words - r.refused;
    if (r.ahat_agree != answered || r.softmax_agree != answered) return false;
    for (const ProgramHeadGap& h : r.heads) {
      if (h.measured < h.analytic * (1 - 1e-12)) return false;
    }
  }
  return true;
}

ProgramSimulation simulate_program(const Program& program, const CompiledProgram& compiled,
                                   const ProgramSimOptions& options) {
  ProgramSimulation sim;
  sim.subject = program.name;
  const model::ModelConfig& cfg = compiled.model.config;
  fill_shape(sim, cfg, options.beta ? *options.beta : cfg.beta);
  sim.bisected = options.bisect;
  Simulator simulator(program, compiled, options);
  std::vector<double> ms, gaps, mb, betas;
  for (std::size_t n : options.lengths) {
    ProgramLength r = simulator.length(n);
    const double m = static_cast<double>(r.padded) + 1;
    if (r.padded >= 2 && std::isfinite(r.measured_gap) && r.measured_gap > 0) {
      ms.push_back(m);
      gaps.push_back(r.measured_gap);
    }
    if (r.padded >= 2 && r.empirical_beta && *r.empirical_beta > 1.0) {
      mb.push_back(m);
      betas.push_back(*r.empirical_beta);
    }
    sim.lengths.push_back(std::move(r));
    if (options.progress) options.progress->advance();
  }
  sim.gap_exponent = simulate::loglog_slope(ms, gaps);
  sim.empirical_beta_exponent = simulate::loglog_slope(mb, betas);
  return sim;
}

std::string format_program_simulation(const ProgramSimulation& sim, bool per_head) {
  std::string out = fmt::format("{}: {} layers, {} heads, width {}; scheduled beta(N) = {}\n", sim.subject, sim.layers,
                                sim.heads, sim.width, sim.schedule);
  const bool bisected = sim.bisected;
  out += fmt::format("{:>5} {:>6} {:>6} {:>4} {:>10} {:>10} {:>6} {:>10} {:>9} {:>9} {:>7}{}\n", "n", "N", "words", "set",
                     "gamma", "analytic", "head", "beta(N)", "AHAT", "softmax", "refused",
                     bisected ? fmt::format(" {:>10}", "beta*") : "");
  for (const ProgramLength& r : sim.lengths) {
    const std::uint64_t answered = r.words - r.refused;
    out += fmt::format("{:>5} {:>6} {:>6} {:>4} {:>10} {:>10} {:>6} {:>10} {:>9} {:>9} {:>7}{}\n", r.n, r.padded,
                       r.words, r.exhaustive ? "all" : "some", num(r.measured_gap), num(r.analytic_gap),
                       r.gap_layer < 0 ? "-" : fmt::format("{}.{}", r.gap_layer, r.gap_head), num(r.beta),
                       fmt::format("{}/{}", r.ahat_agree, answered), fmt::format("{}/{}", r.softmax_agree, answered),
                       r.refused,
                       bisected ? fmt::format(" {:>10}", r.empirical_beta ? num(*r.empirical_beta) : "none") : "");
    if (r.first_disagreement) {
      out += fmt::format("      first disagreement with the interpreter: '{}'\n", sym::encode(*r.first_disagreement));
    }
  }
  if (per_head && !sim.lengths.empty()) {
    const ProgramLength& last = sim.lengths.back();
    out += fmt::format("per head at n = {} (N = {}): measured / analytic gap\n", last.n, last.padded);
    for (const ProgramHeadGap& h : last.heads) {
      out += fmt::format("  {:>3}.{:<2} {:>10} {:>10} {:>8}  {}\n", h.layer, h.head, num(h.measured), num(h.analytic),
                         std::isfinite(h.analytic) && std::isfinite(h.measured) ? fmt::format("{:.2f}", h.measured / h.analytic) : "-",
                         h.label);
    }
  }
  if (sim.gap_exponent) out += fmt::format("fit over N >= 2: measured gamma ~ M^{:.3f} (M = N + 1)", *sim.gap_exponent);
  if (sim.empirical_beta_exponent) out += fmt::format(", beta* ~ M^{:.3f}", *sim.empirical_beta_exponent);
  if (sim.gap_exponent || sim.empirical_beta_exponent) out += "\n";
  out += "gamma: the exact AHAT's minimum row gap over the words ('all': every word of the length; 'some': sampled\n"
         "and adversarial words); analytic: the compiler's gap table at N; AHAT, softmax: outputs equal to the\n"
         "interpreter's; refused: words a range flag stopped (in every mode). beta*: the smallest beta at which\n"
         "softmax still agrees on every tested word (empirical).\n";
  return out;
}

nlohmann::ordered_json program_simulation_json(const ProgramSimulation& sim) {
  nlohmann::ordered_json j;
  j["subject"] = sim.subject;
  shape_json(j, sim);
  j["ok"] = sim.ok();
  j["gap_exponent"] = sim.gap_exponent ? nlohmann::ordered_json(*sim.gap_exponent) : nullptr;
  j["empirical_beta_exponent"] =
      sim.empirical_beta_exponent ? nlohmann::ordered_json(*sim.empirical_beta_exponent) : nullptr;
  j["lengths"] = nlohmann::ordered_json::array();
  for (const ProgramLength& r : sim.lengths) {
    nlohmann::ordered_json l;
    l["n"] = r.n;
    l["padded"] = r.padded;
    l["words"] = r.words;
    l["exhaustive"] = r.exhaustive;
    l["measured_gap"] = finite_or_null(r.measured_gap);
    l["analytic_gap"] = finite_or_null(r.analytic_gap);
    l["beta"] = r.beta;
    l["refused"] = r.refused;
    l["ahat_agree"] = r.ahat_agree;
    l["softmax_agree"] = r.softmax_agree;
    l["first_disagreement"] = r.first_disagreement ? nlohmann::ordered_json(sym::encode(*r.first_disagreement)) : nullptr;
    l["empirical_beta"] = r.empirical_beta ? nlohmann::ordered_json(*r.empirical_beta) : nullptr;
    l["heads"] = nlohmann::ordered_json::array();
    for (const ProgramHeadGap& h : r.heads) {
      l["heads"].push_back({{"layer", h.layer}, {"head", h.head}, {"label", h.label},
                            {"analytic_gap", finite_or_null(h.analytic)}, {"measured_gap", finite_or_null(h.measured)}});
    }
    j["lengths"].push_back(std::move(l));
  }
  return j;
}

bool ProgramCheck::ok() const {
  for (const ProgramCheckRow& r : rows) {
    const std::uint64_t answered = r.words - r.refused;
    if (!oracle.empty() && r.oracle_agree != r.words) return false;
    if (r.ahat_agree != answered || r.softmax_agree != answered || r.gap_short != 0) return false;
  }
  return true;
}

namespace {

// Adds part's counts to row (the same set's words, checked apart).
void merge_row(ProgramCheckRow& row, const ProgramCheckRow& part) {
  if (part.words == 0) return;
  row.beta_min = row.words == 0 ? part.beta_min : std::min(row.beta_min, part.beta_min);
  row.beta_max = row.words == 0 ? part.beta_max : std::max(row.beta_max, part.beta_max);
  row.max_padded = std::max(row.max_padded, part.max_padded);
  row.words += part.words;
  row.refused += part.refused;
  row.oracle_agree += part.oracle_agree;
  row.ahat_agree += part.ahat_agree;
  row.softmax_agree += part.softmax_agree;
  row.gap_short += part.gap_short;
  row.min_gap_ratio = std::min(row.min_gap_ratio, part.min_gap_ratio);
  if (part.first_failure && (!row.first_failure || shorter(*part.first_failure, *row.first_failure))) {
    row.first_failure = part.first_failure;
    row.failure = part.failure;
  }
}

}  // namespace

ProgramCheck verify_program(const Program& program, const CompiledProgram& compiled, const std::string& oracle_name,
                            const ProgramCheckOptions& options) {
  const ProgramOracle* oracle = nullptr;
  if (!oracle_name.empty()) {
    oracle = direct_oracle(oracle_name);
    if (!oracle) {
      std::string known;
      for (const std::string& n : oracle_names()) known += (known.empty() ? "" : ", ") + n;
      throw InputError(fmt::format("no direct oracle named '{}' (known: {}; or 'none')", oracle_name, known));
    }
  }
  ProgramCheck check;
  check.subject = program.name;
  check.oracle = oracle_name;
  const model::ModelConfig& cfg = compiled.model.config;
  fill_shape(check, cfg, cfg.beta);
  ProgramSimOptions sim_options;
  sim_options.max_memory = options.max_memory;
  const int threads = std::max(1, options.threads);
  std::vector<std::unique_ptr<Simulator>> simulators;  // one per thread: a runner's buffers are its own
  for (int t = 0; t < threads; ++t) simulators.push_back(std::make_unique<Simulator>(program, compiled, sim_options));
  // Words 0..count-1 of a set into row: contiguous blocks, one per thread,
  // each counted in its own row, then merged. Every count is a sum, the
  // ratio a minimum, the betas a min and max and the first failure the
  // shortlex-least failing word, so the row is the same for any thread count.
  auto check_set = [&](std::uint64_t count, const std::function<std::string(std::uint64_t)>& word,
                       ProgramCheckRow& row) {
    std::vector<ProgramCheckRow> parts(static_cast<std::size_t>(threads));
    parallel_blocks(0, count, threads, [&](int t, std::uint64_t a, std::uint64_t b) {
      const std::size_t ti = static_cast<std::size_t>(t);
      for (std::uint64_t k = a; k < b; ++k) simulators[ti]->check(word(k), oracle, parts[ti]);
    });
    for (const ProgramCheckRow& part : parts) merge_row(row, part);
  };
  const std::size_t max_len = options.max_len.value_or(program.alphabet.size() <= 4 ? 6 : 5);
  for (std::size_t n = 0; n <= max_len; ++n) {
    ProgramCheckRow row;
    row.set = fmt::format("all words of length {}", n);
    const words::WordSource set = words::WordSource::of_length(program.alphabet, n);
    check_set(set.count, [&set](std::uint64_t k) { return set.at(k); }, row);
    check.rows.push_back(std::move(row));
    if (options.progress) options.progress->advance();
  }
  std::vector<std::size_t> lengths = options.random_lengths;
  if (lengths.empty()) {
    for (std::size_t n = 20; n <= (program.pad ? 40u : 100u); ++n) lengths.push_back(n);
  }
  if (options.samples > 0) {
    ProgramCheckRow row;
    const auto [lo, hi] = std::minmax_element(lengths.begin(), lengths.end());
    row.set = fmt::format("{} random words of lengths {}{}", options.samples, *lo,
                          *lo == *hi ? "" : (lengths.size() == *hi - *lo + 1 ? "-" : "..") + std::to_string(*hi));
    // Drawn in order from one generator, before any is checked: the words
    // do not depend on the thread count.
    std::mt19937_64 rng(options.seed);
    std::vector<std::string> words;
    for (std::size_t k = 0; k < options.samples; ++k) {
      const std::size_t n = lengths[static_cast<std::size_t>(rng() % lengths.size())];
      words.push_back(words::random_word(rng, program.alphabet, n, k));
    }
    check_set(words.size(), [&words](std::uint64_t k) { return words[k]; }, row);
    check.rows.push_back(std::move(row));
    if (options.progress) options.progress->advance();
  }
  return check;
}

std::string format_program_check(const ProgramCheck& check) {
  std::string out = fmt::format("{}: {} layers, {} heads, width {}; scheduled beta(N) = {}; reference: {}\n",
                                check.subject, check.layers, check.heads, check.width, check.schedule,
                                check.oracle.empty() ? "the interpreter (no oracle)" : "the oracle '" + check.oracle + "'");
  out += fmt::format("{:<38} {:>6} {:>17} {:>11} {:>11} {:>11} {:>11} {:>7} {:>9}\n", "words", "N max", "beta(N)",
                     "interpreter", "AHAT", "softmax", "gap>=table", "refused", "gap/table");
  for (const ProgramCheckRow& r : check.rows) {
    const std::uint64_t answered = r.words - r.refused;
    const std::string beta = r.beta_min == r.beta_max ? num(r.beta_min) : num(r.beta_min) + "-" + num(r.beta_max);
    out += fmt::format("{:<38} {:>6} {:>17} {:>11} {:>11} {:>11} {:>11} {:>7} {:>9}\n", r.set, r.max_padded, beta,
                       check.oracle.empty() ? "-" : fmt::format("{}/{}", r.oracle_agree, r.words),
                       fmt::format("{}/{}", r.ahat_agree, answered), fmt::format("{}/{}", r.softmax_agree, answered),
                       fmt::format("{}/{}", answered - r.gap_short, answered), r.refused, num(r.min_gap_ratio));
    if (r.first_failure) {
      out += fmt::format("      first failure: '{}' ({})\n", sym::encode(*r.first_failure), r.failure);
    }
  }
  out += fmt::format("{}: {}\n", check.subject, check.ok() ? "ok" : "FAILED");
  out += "interpreter: outputs equal to the oracle's; AHAT, softmax (at the scheduled beta(N)): equal to the\n"
         "reference (the oracle, or the interpreter without one) over the words no range flag refused; gap>=table:\n"
         "words on which every head's exact gap is at least the compiler's analytic gap at N; gap/table: the\n"
         "smallest measured / analytic ratio over heads and words.\n";
  return out;
}

nlohmann::ordered_json program_check_json(const ProgramCheck& check) {
  nlohmann::ordered_json j;
  j["subject"] = check.subject;
  j["oracle"] = check.oracle.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(check.oracle);
  shape_json(j, check);
  j["ok"] = check.ok();
  j["rows"] = nlohmann::ordered_json::array();
  for (const ProgramCheckRow& r : check.rows) {
    nlohmann::ordered_json l;
    l["set"] = r.set;
    l["max_padded"] = r.max_padded;
    l["beta_min"] = r.beta_min;
    l["beta_max"] = r.beta_max;
    l["words"] = r.words;
    l["refused"] = r.refused;
    l["oracle_agree"] = check.oracle.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(r.oracle_agree);
    l["ahat_agree"] = r.ahat_agree;
    l["softmax_agree"] = r.softmax_agree;
    l["gap_short"] = r.gap_short;
    l["min_gap_ratio"] = finite_or_null(r.min_gap_ratio);
    l["first_failure"] = r.first_failure ? nlohmann::ordered_json(sym::encode(*r.first_failure)) : nullptr;
    l["failure"] = r.first_failure ? nlohmann::ordered_json(r.failure) : nullptr;
    j["rows"].push_back(std::move(l));
  }
  return j;
}

}  // namespace softhat::rasp
