// softhat verify: the compiled transformer against the evaluator and the
// oracles, exhaustively and on random words; exit 1 on any disagreement.
#include <memory>
#include <ostream>

#include "cli/command.h"
#include "cli/json_option.h"
#include "words/words.h"
#include "io/file_util.h"
#include "io/model_file.h"
#include "util/error.h"
#include "verify/verify.h"

namespace softhat::cli {

namespace {
struct Args {
  cli::Selection selection;
  CompileArgs compile;
  verify::VerifyOptions options;
  std::size_t max_len = 0;
  model::AttentionMode mode = model::AttentionMode::kSoftmax;
  model::Precision precision = model::Precision::kDouble;
  JsonOption json;
  std::string shard;
  std::string model;
  int threads = 0;
};
}  // namespace

void setup_verify(CLI::App& app, Runner& runner) {
  CLI::App* sub = app.add_subcommand(
      "verify", "compile each language and compare the transformer with the evaluator and the oracles");
  auto args = std::make_shared<Args>();
  add_selection(sub, args->selection);
  add_compile_options(sub, args->compile, true);
  auto* max_len = sub->add_option("--exhaustive,--max-len", args->max_len,
                                  "check every word up to this length (default: 10 for binary alphabets, 7 for "
                                  "ternary, fewer for larger)");
  max_len->check(CLI::Range(0, 24));
  sub->add_option_function<std::string>(
      "--lengths", [args](const std::string& text) { args->options.lengths = words::parse_length_list(text); },
      "lengths of the random words, e.g. 100,1000 or 20-50 (default 100,1000)");
  sub->add_option("--per-length,--samples", args->options.samples, "random words per length (default 100)");
  sub->add_option("--seed", args->options.seed, "random seed (fixed default)");
  sub->add_option("--model", args->model, "test this model file (compiled or not) instead of the language's "
                                          "compiled transformer, on the same words");
  add_enum_option(sub, "--mode", args->mode, kModeNames, "softmax, or hard");
  add_enum_option(sub, "--precision", args->precision, kPrecisionNames, "double or float");
  args->json.add_to(sub);
  sub->add_option("--threads", args->threads, "words tested in parallel (default: the cores available); the report "
                                              "does not depend on it")
      ->check(CLI::Range(1, 1024));
  sub->add_option("--shard", args->shard, "K/N: test only this shard's part of every row (combine with `softhat merge`)");
  sub->callback([&runner, args, max_len] {
    if (max_len->count()) args->options.max_len = args->max_len;
    runner = [args](Context& ctx) {
      args->options.compile = args->compile.options();
      args->options.beta = args->compile.beta_override();
      args->options.mode = args->mode;
      args->options.precision = args->precision;
      args->options.threads = args->threads > 0 ? args->threads : default_threads();
      args->options.max_memory = ctx.max_memory;
      if (!args->shard.empty()) args->options.shard = parse_shard(args->shard);
      if (!args->model.empty()) {
        args->options.model = std::make_shared<const model::Transformer>(io::load_model(args->model));
        args->options.model_name = args->model;
      }
      std::vector<verify::VerifyReport> reports;
      const std::unique_ptr<util::Progress> progress = ctx.progress("verify");
      args->options.progress = progress.get();
      for (const lang::Language& language : ctx.select(args->selection)) {
        reports.push_back(verify::verify_language(language, args->options));
      }
      progress->finish();
      args->json.table(ctx, verify::format_verify_reports(reports));
      args->json.write(ctx, verify::verify_reports_json(reports, args->options));
      for (const auto& r : reports) {
        if (!r.ok()) return kExitDisagreement;
      }
      return kExitOk;
    };
  });
}

}  // namespace softhat::cli
