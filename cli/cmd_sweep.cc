// softhat sweep: the smallest inverse temperature that works, per length,
// against the schedule and the proven bound (lib/sweep/sweep.h).
#include <fmt/format.h>

#include <memory>
#include <ostream>

#include "cli/command.h"
#include "cli/json_option.h"
#include "compile/acceptor.h"
#include "io/file_util.h"
#include "io/model_file.h"
#include "sweep/sweep.h"
#include "util/error.h"
#include "util/random.h"
#include "words/words.h"

namespace softhat::cli {

namespace {
struct Args {
  cli::Selection selection;
  CompileArgs compile;
  std::string model;
  std::string lengths = "16,32,64,128,256,512,1024,2048,4096,8192,16384";
  std::size_t words = 40;
  bool adversarial = true;
  std::size_t exact_limit = 512;
  std::uint64_t seed = kDefaultSeed;
  std::string svg;
  JsonOption json;
};
}  // namespace

void setup_sweep(CLI::App& app, Runner& runner) {
  CLI::App* sub = app.add_subcommand("sweep", "the smallest inverse temperature that works, per length, against "
                                              "the schedule and the proven bound");
  auto args = std::make_shared<Args>();
  add_selection(sub, args->selection, Languages::kOne);
  add_compile_options(sub, args->compile, true);
  sub->add_option("--model", args->model, "a model file instead of a language (oracle: its average-hard run)");
  sub->add_option("--lengths", args->lengths, "lengths (default 16,32,...,16384)");
  sub->add_option("--per-length,--words", args->words, "seeded words per length besides the adversarial ones (default 40)");
  sub->add_flag("--adversarial,!--no-adversarial", args->adversarial,
                "include (default) or leave out the adversarial words: runs, blocking symbols, periodic words");
  sub->add_option("--exact-limit", args->exact_limit,
                  "compute the AHAT theorem's beta (exact runs) up to this length where the construction has no "
                  "closed-form bound (default 512)");
  sub->add_option("--seed", args->seed, "random seed (fixed default)");
  args->json.add_to(sub);
  sub->add_option("--svg", args->svg, "also draw beta*, the schedule and the proven beta against n to this SVG file");
  sub->callback([&runner, args] {
    runner = [args](Context& ctx) {
      sweep::SweepOptions options;
      options.lengths = words::parse_length_list(args->lengths);
      options.schedule = args->compile.beta_override();
      const Subject subject = select_subject(ctx, args->selection, args->compile, args->model);
      const std::optional<lang::Language>& language = subject.language;
      const model::Transformer& model = subject.model;
      sweep::WordPlan plan;
      plan.words = args->words;
      plan.adversarial = args->adversarial;
      plan.exact_limit = args->exact_limit;
      plan.seed = args->seed;
      const std::unique_ptr<util::Progress> progress = ctx.progress("sweep " + subject.name, "lengths");
      options.progress = progress.get();
      options.max_memory = ctx.max_memory;
      sweep::SweepReport report = sweep::sweep_subject(model, language ? &*language : nullptr,
                                                       args->compile.options(ctx), options, plan);
      progress->finish();
      report.subject = subject.name;
      args->json.table(ctx, sweep::format_sweep_report(report));
      args->json.write(ctx, sweep::sweep_report_json(report));
      if (!args->svg.empty()) io::write_file_atomically(args->svg, sweep::sweep_svg(report));
      for (const sweep::SweepRow& r : report.rows) {
        if (!r.schedule_agrees) return kExitDisagreement;
      }
      return kExitOk;
    };
  });
}

}  // namespace softhat::cli
