// softhat sweep: the smallest inverse temperature that works, per length,
// against the schedule and the proven bound (lib/sweep/sweep.h).
#include <fmt/format.h>

#include <memory>
#include <ostream>

#include "cli/command.h"
#include "compile/acceptor.h"
#include "io/file_util.h"
#include "io/model_file.h"
#include "model/exact_ahat.h"
#include "simulate/simulate.h"
#include "sweep/sweep.h"
#include "task/khop.h"
#include "util/error.h"
#include "verify/check.h"
#include "verify/sample_words.h"
#include "verify/words.h"

namespace softhat::cli {

namespace {
struct Args {
  lang::Selection selection;
  CompileArgs compile;
  std::string model;
  std::string lengths = "16,32,64,128,256,512,1024,2048,4096,8192,16384";
  std::size_t words = 40;
  bool no_adversarial = false;
  std::size_t exact_limit = 512;
  std::uint64_t seed = kDefaultSeed;
  std::string json, svg;
};
}  // namespace

std::function<std::string(const std::string&)> language_oracle(const lang::Language& language) {
  if (language.is_task()) {
    const lang::Language* task = &language;
    return [task](const std::string& w) { return task->transduce(w); };
  }
  // Regex, checker, automaton or DFA; the formula evaluator only if there is nothing else.
  std::vector<verify::VerdictSource> sources = verify::verdict_sources(language);
  verify::VerdictSource chosen = sources.front();
  for (const verify::VerdictSource& s : sources) {
    if (s.name != "formula") {
      chosen = s;
      break;
    }
  }
  return [chosen](const std::string& w) -> std::string { return chosen.accepts(w) ? "TRUE" : "FALSE"; };
}

void setup_sweep(CLI::App& app, Runner& runner) {
  CLI::App* sub = app.add_subcommand("sweep", "the smallest inverse temperature that works, per length, against "
                                              "the schedule and the proven bound");
  auto args = std::make_shared<Args>();
  add_selection(sub, args->selection, false);
  add_compile_options(sub, args->compile, false);
  sub->add_option("--model", args->model, "a model file instead of a language (oracle: its average-hard run)");
  sub->add_option("--lengths", args->lengths, "lengths (default 16,32,...,16384)");
  sub->add_option("--words", args->words, "seeded words per length besides the adversarial ones (default 40)");
  sub->add_flag("--no-adversarial", args->no_adversarial, "leave out the adversarial words (runs, blocking symbols)");
  sub->add_option("--exact-limit", args->exact_limit,
                  "compute the AHAT theorem's beta (exact runs) up to this length where the construction has no "
                  "closed-form bound (default 512)");
  sub->add_option("--seed", args->seed, "random seed (fixed default)");
  sub->add_option("--json", args->json, "also write the report as JSON to this file");
  sub->add_option("--svg", args->svg, "also draw beta*, the schedule and the proven beta against n to this SVG file");
  sub->callback([&runner, args] {
    runner = [args](Context& ctx) {
      sweep::SweepOptions options;
      options.lengths = verify::parse_length_list(args->lengths);
      std::optional<lang::Language> language;
      model::Transformer model;
      if (!args->model.empty()) {
        if (!args->selection.names.empty() || args->selection.all || args->selection.formula || args->selection.task) {
          throw InputError("give either --model FILE or a language, not both");
        }
        model = io::load_model(args->model);
      } else {
        language = select_one(ctx, args->selection, false);
        model = compile::build_acceptor(*language, args->compile.options()).model;
      }
      const std::string alphabet = model.config.alphabet;
      const auto words = [&](std::size_t n) {
        std::vector<std::string> out;
        if (language && language->is_task()) {
          std::mt19937_64 rng = derived_rng(args->seed, "sweep-task:" + alphabet, n);
          for (std::size_t i = 0; i < args->words; ++i) out.push_back(task::khop_word(rng, alphabet, n));
        } else if (language) {
          out = verify::balanced_words(*language, n, args->words, args->seed);  // border positives, near misses
        } else {
          std::mt19937_64 rng = derived_rng(args->seed, "sweep-model:" + alphabet, n);
          for (std::size_t i = 0; i < args->words; ++i) out.push_back(verify::random_word(rng, alphabet, n, i));
        }
        if (!args->no_adversarial) {
          for (std::string& w : verify::adversarial_words(alphabet, n)) out.push_back(std::move(w));
        }
        return out;
      };
      sweep::Oracle oracle;
      if (language) {
        oracle = language_oracle(*language);
      } else {
        // A bare model: its own average-hard run decides.
        auto ahat = std::make_shared<model::ExactAhat>(model);
        const model::Transformer* m = &model;
        oracle = [ahat, m](const std::string& w) -> std::string {
          const model::ExactRun r = ahat->run(w);
          if (m->config.transducer) return model::read_transduction(*m->config.transducer, r.states);
          return r.accepted ? "TRUE" : "FALSE";
        };
      }
      const auto proven = [&](std::size_t n, const std::vector<std::string>& ws) -> std::optional<sweep::Proven> {
        if (language) {
          if (auto b = compile::proven_beta(*language, args->compile.options(), static_cast<std::int64_t>(n))) {
            return sweep::Proven{*b, "construction"};
          }
        }
        if (n > args->exact_limit) return std::nullopt;
        if (auto b = simulate::theorem_beta_on(model, ws, n)) return sweep::Proven{*b, "theorem"};
        return std::nullopt;
      };
      sweep::SweepReport report = sweep::sweep(model, words, oracle, proven, options);
      report.subject = language ? language->name() : args->model;
      if (language && language->formula) report.pe = compile::pe_name(args->compile.options().pe);
      ctx.out << sweep::format_sweep_report(report);
      if (!args->json.empty()) io::write_file_atomically(args->json, sweep::sweep_report_json(report).dump(2) + "\n");
      if (!args->svg.empty()) io::write_file_atomically(args->svg, sweep::sweep_svg(report));
      for (const sweep::SweepRow& r : report.rows) {
        if (!r.schedule_agrees) return kExitDisagreement;
      }
      return kExitOk;
    };
  });
}

}  // namespace softhat::cli
