// softhat simulate: an average-hard transformer against the same weights
// under softmax at the temperature the AHAT -> softmax theorem requires
// (lib/simulate/simulate.h, docs/simulate.md).
#include <fmt/format.h>

#include <memory>
#include <ostream>

#include "cli/command.h"
#include "cli/json_option.h"
#include "cascade/holonomy.h"
#include "compile/acceptor.h"
#include "io/file_util.h"
#include "io/model_file.h"
#include "rasp/compile.h"
#include "rasp/simulate.h"
#include "simulate/simulate.h"
#include "util/error.h"
#include "verify/check.h"
#include "verify/sample_words.h"
#include "words/words.h"

namespace softhat::cli {

namespace {
struct Args {
  cli::Selection selection;
  CompileArgs compile;
  std::string model;
  std::string lengths = "0-8,16,32,64,128";
  std::size_t samples = 20;
  std::uint64_t exhaustive_limit = 5000;
  double epsilon = 0;
  std::uint64_t seed = kDefaultSeed;
  JsonOption json;
  bool bisect = false;
  std::string program;
};
// --program: interpreter, exact AHAT and softmax of the compiled program, per length.
int simulate_program(Context& ctx, const Args& args, bool has_lengths) {
  if (args.selection.any() || !args.model.empty()) {
    throw InputError("give --program alone, not with --model or a language");
  }
  const rasp::Program program = rasp::load_program(args.program);
  const rasp::CompiledProgram compiled = rasp::compile_program(program, ctx.max_memory);
  rasp::ProgramSimOptions options;
  const std::string lengths = has_lengths ? args.lengths : program.pad ? "1-6" : "1-8,16,32,64";
  options.lengths = words::parse_length_list(lengths);
  options.samples = args.samples;
  options.exhaustive_limit = args.exhaustive_limit;
  options.seed = args.seed;
  options.beta = args.compile.beta_override();
  options.bisect = args.bisect;
  options.max_memory = ctx.max_memory;
  const std::unique_ptr<util::Progress> progress = ctx.progress("simulate " + program.name, "lengths");
  progress->add_total(options.lengths.size());
  options.progress = progress.get();
  const rasp::ProgramSimulation sim = rasp::simulate_program(program, compiled, options);
  progress->finish();
  args.json.table(ctx, rasp::format_program_simulation(sim, true));
  nlohmann::ordered_json json;
  json["reports"] = nlohmann::ordered_json::array({rasp::program_simulation_json(sim)});
  json["ok"] = sim.ok();
  args.json.write(ctx, json);
  return sim.ok() ? kExitOk : kExitDisagreement;
}

}  // namespace

void setup_simulate(CLI::App& app, Runner& runner) {
  CLI::App* sub = app.add_subcommand(
      "simulate", "run a model as an average-hard transformer and under softmax at the theorem's temperature");
  auto args = std::make_shared<Args>();
  add_selection(sub, args->selection);
  add_compile_options(sub, args->compile, true);
  sub->add_option("--model", args->model, "a model file (.safetensors) instead of a language");
  sub->add_option("--program", args->program,
                  "an S-RASP program (.srasp): compile it and compare interpreter, exact AHAT and softmax");
  auto* lengths = sub->add_option(
      "--lengths", args->lengths,
      "lengths, e.g. 0-12,16,1000 (default 0-8,16,32,64,128; with --program 1-8,16,32,64, padded programs 1-6)");
  sub->add_option("--per-length,--samples", args->samples, "sampled words per length when not exhaustive (default 20)");
  sub->add_option("--exhaustive-limit", args->exhaustive_limit,
                  "test every word of a length when there are at most this many (default 5000)");
  auto* eps = sub->add_option("--epsilon", args->epsilon,
                              "target final-state error of the theorem (default: half the smallest AHAT margin)");
  eps->check(CLI::PositiveNumber);
  sub->add_option("--seed", args->seed, "random seed (fixed default)");
  sub->add_flag("--bisect", args->bisect, "also find the smallest beta at which every tested decision agrees");
  args->json.add_to(sub);
  sub->callback([&runner, args, eps, lengths] {
    const bool has_eps = eps->count() > 0;
    if (!args->program.empty()) {
      if (has_eps) throw CLI::ValidationError("--epsilon", "not with --program (its beta is the compiler's schedule)");
      const bool has_lengths = lengths->count() > 0;
      runner = [args, has_lengths](Context& ctx) { return simulate_program(ctx, *args, has_lengths); };
      return;
    }
    runner = [args, has_eps](Context& ctx) {
      simulate::SimulateOptions options;
      options.lengths = words::parse_length_list(args->lengths);
      if (has_eps) options.epsilon = args->epsilon;
      options.bisect = args->bisect;
      options.beta = args->compile.beta_override();
      const std::unique_ptr<util::Progress> progress = ctx.progress("simulate", "lengths");
      options.progress = progress.get();
      options.max_memory = ctx.max_memory;
      std::vector<std::optional<lang::Language>> subjects;
      if (!args->model.empty()) {
        if (args->selection.any()) throw InputError("give either --model FILE or a language, not both");
        subjects.emplace_back(std::nullopt);
      } else {
        for (lang::Language& l : ctx.select(args->selection)) {
          if (compile::has_acceptor(l)) subjects.emplace_back(std::move(l));
          else if (!args->selection.all) throw InputError(fmt::format("language '{}' has no formula or construction", l.name()));
        }
      }
      nlohmann::ordered_json json;
      json["reports"] = nlohmann::ordered_json::array();
      bool all_ok = true;
      for (const std::optional<lang::Language>& language : subjects) {
        std::optional<model::Transformer> built;
        try {
          built = language ? compile::build_acceptor(*language, args->compile.options(ctx)).model
                           : io::load_model(args->model);
        } catch (const cascade::NotStarFree& e) {
          // A DFA-defined language that is not star-free (with --all or --att DIR: skipped).
          if (!args->selection.all && args->selection.att.empty()) throw;
          ctx.err << fmt::format("softhat: skipped {}: {}\n", language->name(), e.what());
          continue;
        }
        const model::Transformer& model = *built;
        simulate::Oracle oracle_fn;
        if (language) oracle_fn = verify::oracle_verdict(*language);
        const std::string alphabet = model.config.alphabet;
        const auto source = [&](std::size_t n) {
          words::WordSource set =
              simulate::model_words(alphabet, n, args->samples, args->exhaustive_limit, args->seed);
          if (!set.complete && language && !language->is_task()) {
            // Border positives and near-miss negatives, plus the adversarial families.
            // (Near misses by insertion or deletion have another length: gaps are per length, so they go.)
            std::vector<std::string> words;
            for (std::string& w : verify::balanced_words(*language, n, args->samples, args->seed, ctx.max_memory)) {
              if (w.size() == n) words.push_back(std::move(w));
            }
            for (std::string& w : set.all()) {
              if (std::find(words.begin(), words.end(), w) == words.end()) words.push_back(std::move(w));
            }
            set = words::WordSource::list(set.label, std::move(words));
          }
          return set;
        };
        progress->set_label("simulate " + (language ? language->name() : args->model));
        progress->add_total(options.lengths.size());
        simulate::SimulateReport report = simulate::simulate(model, source, language ? &oracle_fn : nullptr, options);
        report.subject = language ? language->name() : args->model;
        args->json.table(ctx, simulate::format_simulate_report(report));
        json["reports"].push_back(simulate::simulate_report_json(report));
        all_ok = all_ok && report.ok();
      }
      progress->finish();
      args->json.table(ctx, simulate::simulate_legend());
      json["ok"] = all_ok;
      args->json.write(ctx, json);
      return all_ok ? kExitOk : kExitDisagreement;
    };
  });
}

}  // namespace softhat::cli
