#include "simulate/simulate.h"

#include "util/memory.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "words/words.h"
#include "util/interrupt.h"
#include "util/symbols.h"

namespace softhat::simulate {

bool SimulateReport::ok() const {
  for (const LengthReport& r : lengths) {
    if (r.agree_ahat != r.words) return false;
    if (r.ahat_oracle >= 0 && static_cast<std::uint64_t>(r.ahat_oracle) != r.words) return false;
    if (r.softmax_oracle >= 0 && static_cast<std::uint64_t>(r.softmax_oracle) != r.words) return false;
  }
  return true;
}

words::WordSource model_words(const std::string& alphabet, std::size_t n, std::size_t samples,
                              std::uint64_t exhaustive_limit, std::uint64_t seed) {
  words::WordSource every = words::WordSource::of_length(alphabet, n);
  if (every.count <= exhaustive_limit) return every;
  std::vector<std::string> list;
  std::set<std::string> seen;
  auto add = [&](std::string w) {
    if (seen.insert(w).second) list.push_back(std::move(w));
  };
  // Adversarial families: long runs, one different symbol far from the
  // other end or in the middle, periodic words.
  for (std::string& w : words::adversarial_words(alphabet, n)) add(std::move(w));
  const std::size_t adversarial = list.size();
  std::mt19937_64 rng = derived_rng(seed, "simulate-words", n);
  for (std::uint64_t i = 0; list.size() < adversarial + samples && i < 20 * samples + 20; ++i) {
    add(words::random_word(rng, alphabet, n, i));
  }
  return words::WordSource::list(fmt::format("{}", n), std::move(list));
}

std::optional<double> loglog_slope(const std::vector<double>& x, const std::vector<double>& y) {
  const std::size_t m = std::min(x.size(), y.size());
  if (m < 2) return std::nullopt;
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (std::size_t i = 0; i < m; ++i) {
    const double lx = std::log(x[i]), ly = std::log(y[i]);
    sx += lx;
    sy += ly;
    sxx += lx * lx;
    sxy += lx * ly;
  }
  const double den = static_cast<double>(m) * sxx - sx * sx;
  if (den <= 0) return std::nullopt;
  return (static_cast<double>(m) * sxy - sx * sy) / den;
}

namespace {

// The AHAT's output margin: the readout's, or a transducer's smallest symbol margin.
double decision_margin(const model::Transformer& model, const model::ExactRun& run) {
  double margin = run.output_margin;
  if (model.config.transducer) model::read_transduction(*model.config.transducer, run.states, &margin);
  return margin;
}

double state_distance(const model::Matrix& a, const model::Matrix& b) {
  double worst = 0;
  for (Eigen::Index i = 0; i < a.rows(); ++i) worst = std::max(worst, (a.row(i) - b.row(i)).norm());
  return worst;
}

}  // namespace

model::GapProfile empty_profile(const model::Transformer& model, std::size_t n) {
  model::GapProfile profile;
  profile.keys = static_cast<std::int64_t>(n) + 1;
  profile.input_norm.assign(model.layers.size(), 0.0);
  for (const auto& l : model.layers) {
    profile.gap.emplace_back(l.heads.size(), model::kNoGap);
    profile.value_norm.emplace_back(l.heads.size(), 0.0);
  }
  return profile;
}

void add_to_profile(model::GapProfile& profile, const model::ExactRun& run) {
  std::size_t h = 0;
  for (std::size_t l = 0; l < profile.gap.size(); ++l) {
    profile.input_norm[l] = std::max(profile.input_norm[l], run.input_norms[l]);
    for (std::size_t k = 0; k < profile.gap[l].size(); ++k, ++h) {
      profile.gap[l][k] = std::min(profile.gap[l][k], run.heads[h].gap);
      profile.value_norm[l][k] = std::max(profile.value_norm[l][k], run.heads[h].max_value_norm);
    }
  }
}

std::optional<double> theorem_beta_on(const model::Transformer& model, const std::vector<std::string>& words,
                                      std::size_t n) {
  const model::ExactAhat ahat(model);
  model::GapProfile profile = empty_profile(model, n);
  double margin = model::kNoGap;
  for (const std::string& w : words) {
    const model::ExactRun run = ahat.run(w);
    add_to_profile(profile, run);
    margin = std::min(margin, decision_margin(model, run));
  }
  const double eps = margin < model::kNoGap ? std::max(margin / 2, 1e-300) : 0.25;
  const model::TheoremBeta tb = model::theorem_beta(model::weight_norms(model), profile, eps);
  if (!tb.found) return std::nullopt;
  return tb.beta;
}

namespace {
// Before anything of length n is made: the softmax run and the exact
// average-hard run (rational states, about four times the doubles).
void check_length_memory(const model::Transformer& model, std::size_t n, std::size_t max_memory) {
  model::RunOptions kept;
  kept.keep_all_states = true;
  util::check_memory(util::saturating_product({model::word_memory_bytes(model, n, kept), 4}), max_memory,
                     fmt::format("a word of {} symbols, run exactly and in softmax,", n));
}

// gamma-hat(n): the smallest of the per-head gaps, and the head that has it.
void take_smallest_gap(LengthReport& r) {
  for (const model::HeadGap& g : r.heads) {
    if (g.gap < r.gap) {
      r.gap = g.gap;
      r.gap_layer = g.layer;
      r.gap_head = g.head;
    }
  }
}
}  // namespace

SimulateReport simulate(const model::Transformer& model, const words::WordsAt& source, const Oracle* oracle,
                        const SimulateOptions& options) {
  SimulateReport report;
  report.layers = static_cast<int>(model.layers.size());
  for (const auto& l : model.config.layers) report.heads += static_cast<int>(l.heads.size());
  report.width = model.config.d_model;
  const model::ExactAhat ahat(model);
  const model::Engine engine(model);
  model::Runner runner(engine);
  const std::vector<model::LayerNorms> norms = model::weight_norms(model);
  for (std::size_t n : options.lengths) {
    const util::ProgressStep step(options.progress);  // (the caller sets the total)
    throw_if_interrupted();
    check_length_memory(model, n, options.max_memory);
    const words::WordSource at_n = source(n);
    const std::vector<std::string> tested = at_n.all();
    LengthReport r;
    r.n = n;
    r.words = tested.size();
    r.exhaustive = at_n.complete;
    model::GapProfile profile = empty_profile(model, n);
    const bool keep = static_cast<double>(tested.size()) * static_cast<double>(n + 1) * model.config.d_model <= 2e7;
    std::vector<model::ExactRun> runs;
    std::vector<Verdict> ahat_verdicts;
    auto verdict = [&](bool accepted, const model::Matrix& states) -> Verdict {
      if (model.config.transducer) return Verdict::output(model::read_transduction(*model.config.transducer, states));
      return Verdict::accept(accepted);
    };
    if (oracle) r.ahat_oracle = r.softmax_oracle = 0;
    std::vector<Verdict> truth;
    for (const std::string& w : tested) {
      throw_if_interrupted();
      model::ExactRun run = ahat.run(w);
      if (r.heads.empty()) {
        r.heads = run.heads;
      } else {
        for (std::size_t h = 0; h < run.heads.size(); ++h) r.heads[h].merge(run.heads[h]);
      }
      add_to_profile(profile, run);
      r.min_ahat_margin = std::min(r.min_ahat_margin, decision_margin(model, run));
      ahat_verdicts.push_back(verdict(run.accepted, run.states));
      if (oracle) {
        truth.push_back((*oracle)(w));
        r.ahat_oracle += truth.back() == ahat_verdicts.back();
      }
      if (keep) runs.push_back(std::move(run));
    }
    take_smallest_gap(r);
    r.epsilon = options.epsilon ? *options.epsilon : std::max(r.min_ahat_margin / 2, 1e-300);
    if (!(r.epsilon < model::kNoGap)) r.epsilon = 0.25;  // no words: any target
    const model::TheoremBeta tb = model::theorem_beta(norms, profile, r.epsilon);
    r.theorem_found = tb.found;
    r.theorem_beta = tb.found ? tb.beta : 0;
    r.beta = options.beta ? options.beta->at(static_cast<std::int64_t>(n)) : r.theorem_beta;
    const model::ErrorBound eb = model::softmax_error_bound(norms, profile, r.beta);
    r.bound = eb.side_conditions ? eb.final_error : model::kNoGap;
    if (!options.beta && !tb.found) r.bound = model::kNoGap;
    model::RunOptions ro;
    ro.beta = model::BetaSchedule{.c = r.beta, .a = 0, .b = 0};
    ro.keep_all_states = true;
    ro.max_memory = options.max_memory;
    for (std::size_t i = 0; i < tested.size(); ++i) {
      const std::string& w = tested[i];
      if (r.beta <= 0) break;  // no beta to run at
      const model::RunResult soft = runner.run(w, ro);
      const model::Matrix exact_states = keep ? runs[i].states : ahat.run(w).states;
      r.max_state_diff = std::max(r.max_state_diff, state_distance(soft.states, exact_states));
      const Verdict soft_verdict = verdict(soft.accepted, soft.states);
      const bool agree = soft_verdict == ahat_verdicts[i];
      r.agree_ahat += agree;
      if (!agree && (!r.first_disagreement || w.size() < r.first_disagreement->size())) r.first_disagreement = w;
      if (oracle) r.softmax_oracle += soft_verdict == truth[i];
    }
    if (options.bisect && r.theorem_found && r.gap < model::kNoGap) {
      // Decisions at beta; the bracket [lo, hi] keeps "lo fails, hi agrees".
      auto agrees = [&](double beta) {
        model::RunOptions b;
        b.beta = model::BetaSchedule{.c = beta, .a = 0, .b = 0};
        b.keep_all_states = model.config.transducer.has_value();
        for (std::size_t i = 0; i < tested.size(); ++i) {
          const model::RunResult soft = runner.run(tested[i], b);
          if (verdict(soft.accepted, soft.states) != ahat_verdicts[i]) return false;
        }
        return true;
      };
      double hi = r.theorem_beta, lo = hi;
      bool ok = agrees(hi);
      while (ok && lo > 1e-3) {
        lo /= 4;
        ok = agrees(lo);
      }
      if (!ok) {
        while (hi / lo > 1.01) {
          const double mid = std::sqrt(lo * hi);
          (agrees(mid) ? hi : lo) = mid;
        }
        r.empirical_beta = hi;
      }
    }
    report.lengths.push_back(std::move(r));
  }
  std::vector<double> xs, gaps, xb, betas;
  for (const LengthReport& r : report.lengths) {
    if (r.n < 2 || !(r.gap < model::kNoGap)) continue;
    xs.push_back(static_cast<double>(r.n + 1));
    gaps.push_back(r.gap);
    if (r.theorem_found) {
      xb.push_back(static_cast<double>(r.n + 1));
      betas.push_back(r.theorem_beta);
    }
  }
  report.gap_exponent = loglog_slope(xs, gaps);
  report.beta_exponent = loglog_slope(xb, betas);
  return report;
}

namespace {

std::string num(double v) {
  if (!(v < model::kNoGap)) return "inf";
  if (v == 0) return "0";
  return fmt::format("{:.4g}", v);
}

}  // namespace

std::string format_simulate_report(const SimulateReport& rep) {
  std::string out = fmt::format("{}: {} layers, {} heads, width {}\n", rep.subject, rep.layers, rep.heads, rep.width);
  bool bisected = false;
  for (const LengthReport& r : rep.lengths) bisected = bisected || r.empirical_beta;
  out += fmt::format("{:>6} {:>7} {:>4} {:>11} {:>6} {:>9} {:>11} {:>11} {:>11} {:>12} {:>11}{}\n", "n", "words",
                     "set", "gap", "head", "eps", "beta(n)", "bound", "max|dx|", "softmax=AHAT", "oracle",
                     bisected ? fmt::format(" {:>10}", "beta*") : "");
  for (const LengthReport& r : rep.lengths) {
    const std::string head = r.gap_layer < 0 ? "-" : fmt::format("{}.{}", r.gap_layer, r.gap_head);
    std::string orc = "-";
    if (r.ahat_oracle >= 0) orc = fmt::format("{}/{}", r.ahat_oracle == static_cast<std::int64_t>(r.words) ? "ok" : "BAD",
                                              r.softmax_oracle == static_cast<std::int64_t>(r.words) ? "ok" : "BAD");
    out += fmt::format("{:>6} {:>7} {:>4} {:>11} {:>6} {:>9} {:>11} {:>11} {:>11} {:>12} {:>11}{}\n", r.n, r.words,
                       r.exhaustive ? "all" : "some", num(r.gap), head, num(r.epsilon),
                       r.beta > 0 ? num(r.beta) : "none", num(r.bound), num(r.max_state_diff),
                       fmt::format("{}/{}", r.agree_ahat, r.words), orc,
                       bisected ? fmt::format(" {:>10}", r.empirical_beta ? num(*r.empirical_beta) : "-") : "");
    if (r.first_disagreement) {
      const std::string& w = *r.first_disagreement;
      out += fmt::format("       first softmax/AHAT disagreement: '{}'{}\n", sym::encode(w.substr(0, 60)),
                         w.size() > 60 ? fmt::format("... ({} symbols; all of it in --json)", w.size()) : "");
    }
  }
  if (rep.gap_exponent) {
    out += fmt::format("fit over n >= 2: gap ~ (n+1)^{:.3f}", *rep.gap_exponent);
    if (rep.beta_exponent) out += fmt::format(", theorem beta ~ (n+1)^{:.3f}", *rep.beta_exponent);
    out += "\n";
  }
  return out;
}

std::string simulate_legend() {
  return "gap: minimum row gap of the exact average-hard run ('all': every word of the length, the true gap;\n"
         "'some': sampled and adversarial words, an upper bound; head: layer.head attaining it). beta(n): the\n"
         "theorem's inverse temperature for final-state error eps (docs/simulate.md) unless --beta; bound: the\n"
         "theorem's bound on the final-state error at that beta; max|dx|: the largest measured one.\n"
         "oracle: AHAT/softmax decisions against the language's oracle. beta* (--bisect): the smallest beta at\n"
         "which softmax agrees with the AHAT on every tested word (empirical).\n";
}

nlohmann::ordered_json simulate_report_json(const SimulateReport& rep) {
  nlohmann::ordered_json j;
  j["subject"] = rep.subject;
  j["layers"] = rep.layers;
  j["heads"] = rep.heads;
  j["width"] = rep.width;
  j["ok"] = rep.ok();
  j["gap_exponent"] = rep.gap_exponent ? nlohmann::ordered_json(*rep.gap_exponent) : nlohmann::ordered_json(nullptr);
  j["beta_exponent"] = rep.beta_exponent ? nlohmann::ordered_json(*rep.beta_exponent) : nlohmann::ordered_json(nullptr);
  auto jnum = [](double v) -> nlohmann::ordered_json {
    if (!(v < model::kNoGap)) return nullptr;
    return v;
  };
  j["lengths"] = nlohmann::ordered_json::array();
  for (const LengthReport& r : rep.lengths) {
    nlohmann::ordered_json row;
    row["n"] = r.n;
    row["words"] = r.words;
    row["exhaustive"] = r.exhaustive;
    row["gap"] = jnum(r.gap);
    row["gap_is_upper_bound"] = !r.exhaustive;
    row["epsilon"] = r.epsilon;
    row["theorem_beta"] = r.theorem_found ? nlohmann::ordered_json(r.theorem_beta) : nlohmann::ordered_json(nullptr);
    row["beta"] = r.beta;
    row["bound"] = jnum(r.bound);
    row["max_state_diff"] = r.max_state_diff;
    row["min_ahat_margin"] = jnum(r.min_ahat_margin);
    row["agree_ahat"] = r.agree_ahat;
    if (r.ahat_oracle >= 0) {
      row["ahat_oracle"] = r.ahat_oracle;
      row["softmax_oracle"] = r.softmax_oracle;
    }
    if (r.first_disagreement) row["first_disagreement"] = sym::encode(*r.first_disagreement);
    if (r.empirical_beta) row["empirical_beta"] = *r.empirical_beta;
    row["heads"] = nlohmann::ordered_json::array();
    for (const model::HeadGap& g : r.heads) {
      row["heads"].push_back({{"layer", g.layer},
                              {"head", g.head},
                              {"uniform_head", g.uniform_head},
                              {"gap", jnum(g.gap)},
                              {"rows", g.rows},
                              {"uniform_rows", g.uniform_rows},
                              {"tied_rows", g.tied_rows},
                              {"max_value_norm", g.max_value_norm}});
    }
    j["lengths"].push_back(std::move(row));
  }
  return j;
}

}  // namespace softhat::simulate
