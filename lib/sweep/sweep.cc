#include "sweep/sweep.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <memory>

#include "compile/acceptor.h"
#include "model/exact_ahat.h"
#include "plot/svg.h"
#include "simulate/simulate.h"
#include "task/khop.h"
#include "util/memory.h"
#include "util/random.h"
#include "util/symbols.h"
#include "verify/check.h"
#include "verify/sample_words.h"
#include "words/words.h"
#include "util/interrupt.h"

namespace softhat::sweep {

namespace {

struct Form {
  const char* name;
  double (*f)(double m);  // m = n + 1
};

const Form kForms[] = {
    {"c", [](double) { return 1.0; }},
    {"c*ln(n+1)", [](double m) { return std::log(m); }},
    {"c*(n+1)", [](double m) { return m; }},
    {"c*(n+1)*ln(n+1)", [](double m) { return m * std::log(m); }},
    {"c*(n+1)^2", [](double m) { return m * m; }},
};

std::string num(double v) { return fmt::format("{:.4g}", v); }

}  // namespace

SweepReport sweep(const model::Transformer& model, const words::WordsAt& source, const Oracle& oracle,
                  const ProvenBeta& proven, const SweepOptions& options) {
  SweepReport report;
  report.schedule = options.schedule ? "--beta " + options.schedule->describe() : model.config.beta.describe();
  const model::Engine engine(model);
  model::Runner runner(engine);
  if (options.progress) options.progress->add_total(options.lengths.size());
  for (std::size_t n : options.lengths) {
    throw_if_interrupted();
    const util::ProgressStep step(options.progress);
    // Before the words of length n are made.
    util::check_memory(model::word_memory_bytes(model, n, model::RunOptions{}), options.max_memory,
                       fmt::format("a word of {} symbols in the engine", n));
    const std::vector<std::string> words = source(n).all();
    std::vector<Verdict> expected;
    for (const std::string& w : words) expected.push_back(oracle(w));
    auto agrees = [&](double beta) {
      model::RunOptions o;
      o.beta = model::BetaSchedule{.c = beta, .a = 0, .b = 0};
      o.max_memory = options.max_memory;
      for (std::size_t i = 0; i < words.size(); ++i) {
        const model::RunResult r = runner.run(words[i], o);
        const Verdict verdict = r.output ? Verdict::output(*r.output) : Verdict::accept(r.accepted);
        if (verdict != expected[i]) return false;
      }
      return true;
    };
    SweepRow row;
    row.n = n;
    row.words = words.size();
    const model::BetaSchedule& judged = options.schedule ? *options.schedule : model.config.beta;
    row.schedule = judged.at(static_cast<std::int64_t>(n));
    row.schedule_agrees = agrees(row.schedule);
    // The search starts from the model's own schedule whatever is judged: a
    // --beta far below what the model needs must not end it at "FAILS".
    double hi = model.config.beta.at(static_cast<std::int64_t>(n));
    bool ok = hi == row.schedule ? row.schedule_agrees : agrees(hi);
    for (int k = 0; k < 3 && !ok; ++k) ok = agrees(hi *= 4);
    if (!ok) {
      row.fails_everywhere = true;
    } else {
      double lo = hi;
      bool lo_ok = true;
      while (lo_ok && lo > 1e-4) {
        hi = lo;
        lo /= 4;
        lo_ok = agrees(lo);
      }
      if (!lo_ok) {
        while (hi / lo > 1 + options.tolerance) {
          const double mid = std::sqrt(lo * hi);
          (agrees(mid) ? hi : lo) = mid;
        }
        row.empirical = hi;
      }
    }
    if (proven) {
      if (const std::optional<Proven> p = proven(n, words)) {
        row.proven = p->beta;
        row.proven_source = p->source;
      }
    }
    report.rows.push_back(std::move(row));
  }
  std::vector<double> x, y;
  for (const SweepRow& r : report.rows) {
    if (r.empirical && r.n >= 1) {
      x.push_back(static_cast<double>(r.n + 1));
      y.push_back(*r.empirical);
    }
  }
  report.exponent = simulate::loglog_slope(x, y);
  if (!x.empty()) {
    for (const Form& form : kForms) {
      if (x.size() < 2 && std::string(form.name) != "c") continue;
      double mean = 0;
      for (std::size_t i = 0; i < x.size(); ++i) mean += std::log(y[i] / form.f(x[i]));
      mean /= static_cast<double>(x.size());
      double ss = 0;
      for (std::size_t i = 0; i < x.size(); ++i) ss += std::pow(std::log(y[i] / form.f(x[i])) - mean, 2);
      report.fits.push_back({form.name, std::exp(mean), std::sqrt(ss / static_cast<double>(x.size()))});
    }
    std::stable_sort(report.fits.begin(), report.fits.end(),
                     [](const Fit& a, const Fit& b) { return a.rms < b.rms; });
  }
  return report;
}

SweepReport sweep_subject(const model::Transformer& model, const lang::Language* language,
                          const compile::CompileOptions& compile, const SweepOptions& options, const WordPlan& plan) {
  const std::string alphabet = model.config.alphabet;
  const auto words = [&](std::size_t n) {
    std::vector<std::string> out;
    if (language && language->is_task()) {
      std::mt19937_64 rng = derived_rng(plan.seed, "sweep-task:" + sym::encode(alphabet), n);
      for (std::size_t i = 0; i < plan.words; ++i) out.push_back(task::khop_word(rng, alphabet, n));
    } else if (language) {
      out = verify::balanced_words(*language, n, plan.words, plan.seed, options.max_memory);  // border positives, near misses
    } else {
      std::mt19937_64 rng = derived_rng(plan.seed, "sweep-model:" + sym::encode(alphabet), n);
      for (std::size_t i = 0; i < plan.words; ++i) out.push_back(words::random_word(rng, alphabet, n, i));
    }
    if (plan.adversarial) {
      for (std::string& w : words::adversarial_words(alphabet, n)) out.push_back(std::move(w));
    }
    return words::WordSource::list(fmt::format("{}", n), std::move(out));
  };
  Oracle oracle;
  if (language) {
    oracle = verify::oracle_verdict(*language);
  } else {
    // A bare model: its own average-hard run decides.
    auto ahat = std::make_shared<model::ExactAhat>(model);
    const model::Transformer* m = &model;
    oracle = [ahat, m](const std::string& w) -> Verdict {
      const model::ExactRun r = ahat->run(w);
      if (m->config.transducer) return Verdict::output(model::read_transduction(*m->config.transducer, r.states));
      return Verdict::accept(r.accepted);
    };
  }
  const auto proven = [&](std::size_t n, const std::vector<std::string>& ws) -> std::optional<Proven> {
    if (language) {
      if (auto b = compile::proven_beta(*language, compile, static_cast<std::int64_t>(n))) {
        return Proven{*b, "construction"};
      }
    }
    if (n > plan.exact_limit) return std::nullopt;
    if (auto b = simulate::theorem_beta_on(model, ws, n)) return Proven{*b, "theorem"};
    return std::nullopt;
  };
  SweepReport report = sweep(model, words, oracle, proven, options);
  if (language && language->formula) report.pe = compile::pe_name(compile.pe);
  return report;
}

std::string format_sweep_report(const SweepReport& rep) {
  std::string out = fmt::format("{}{}\n", rep.subject, rep.pe.empty() ? "" : fmt::format(" ({} PE)", rep.pe));
  out += fmt::format("{:>7} {:>6} {:>11} {:>11} {:>9} {:>11} {:>12} {:>11}\n", "n", "words", "beta*", "schedule",
                     "sched ok", "proven", "from", "beta*/(n+1)");
  for (const SweepRow& r : rep.rows) {
    std::string emp = r.empirical ? num(*r.empirical) : (r.fails_everywhere ? "FAILS" : "<1e-4");
    out += fmt::format("{:>7} {:>6} {:>11} {:>11} {:>9} {:>11} {:>12} {:>11}\n", r.n, r.words, emp, num(r.schedule),
                       r.schedule_agrees ? "yes" : "NO", r.proven ? num(*r.proven) : "-",
                       r.proven ? r.proven_source : "", r.empirical ? num(*r.empirical / static_cast<double>(r.n + 1)) : "-");
  }
  if (rep.exponent) out += fmt::format("beta* ~ (n+1)^{:.3f} (least squares on log-log)\n", *rep.exponent);
  if (!rep.fits.empty()) {
    out += "fits of beta*, best first (rms of log residuals):";
    for (const Fit& f : rep.fits) out += fmt::format("  {} c={:.4g} rms={:.3f}", f.form, f.c, f.rms);
    out += "\n";
  }
  out += "beta*: the smallest beta (log-scale bisection, 1%) at which every decision on the word set agrees with\n"
         "the oracle; a lower bound on what all words need. schedule: beta(n) = " + rep.schedule + ". proven: the beta\n"
         "the construction's proof needs (docs/compiler.md) or the AHAT theorem's (docs/simulate.md).\n";
  return out;
}

nlohmann::ordered_json sweep_report_json(const SweepReport& rep) {
  nlohmann::ordered_json j;
  j["subject"] = rep.subject;
  j["pe"] = rep.pe;
  j["schedule"] = rep.schedule;
  j["rows"] = nlohmann::ordered_json::array();
  for (const SweepRow& r : rep.rows) {
    nlohmann::ordered_json row;
    row["n"] = r.n;
    row["words"] = r.words;
    row["empirical_beta"] = r.empirical ? nlohmann::ordered_json(*r.empirical) : nlohmann::ordered_json(nullptr);
    row["fails_everywhere"] = r.fails_everywhere;
    row["schedule_beta"] = r.schedule;
    row["schedule_agrees"] = r.schedule_agrees;
    row["proven_beta"] = r.proven ? nlohmann::ordered_json(*r.proven) : nlohmann::ordered_json(nullptr);
    row["proven_from"] = r.proven_source;
    j["rows"].push_back(row);
  }
  j["exponent"] = rep.exponent ? nlohmann::ordered_json(*rep.exponent) : nlohmann::ordered_json(nullptr);
  j["fits"] = nlohmann::ordered_json::array();
  for (const Fit& f : rep.fits) j["fits"].push_back({{"form", f.form}, {"c", f.c}, {"rms", f.rms}});
  return j;
}

std::string sweep_svg(const SweepReport& rep) {
  plot::Series emp{"beta* (measured)", {}, {}, "#d62728", false, true};
  plot::Series sched{"schedule beta(n)", {}, {}, "#1f77b4", false, true};
  plot::Series prov{"proven beta(n)", {}, {}, "#2ca02c", true, true};
  for (const SweepRow& r : rep.rows) {
    const double m = static_cast<double>(r.n + 1);
    if (r.empirical) {
      emp.x.push_back(m);
      emp.y.push_back(*r.empirical);
    }
    sched.x.push_back(m);
    sched.y.push_back(r.schedule);
    if (r.proven) {
      prov.x.push_back(m);
      prov.y.push_back(*r.proven);
    }
  }
  std::string title = fmt::format("{}: smallest inverse temperature that works", rep.subject);
  if (!rep.pe.empty()) title += fmt::format(" ({} PE)", rep.pe);
  return plot::loglog_plot(title, "n + 1", "beta", {emp, sched, prov});
}

}  // namespace softhat::sweep
