// softhat verify: the compiled transformer against the evaluator and the
// oracles, exhaustively and on random words; exit 1 on any disagreement.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <ostream>

#include "cli/command.h"
#include "cli/json_option.h"
#include "words/words.h"
#include "io/file_util.h"
#include "io/model_file.h"
#include "rasp/compile.h"
#include "rasp/program.h"
#include "rasp/simulate.h"
#include "util/error.h"
#include "util/shard.h"
#include "verify/scale.h"
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
  std::string program, oracle;
  std::string lengths;
  std::string scale;  // --mlregtest-splits SIZE
  std::string out;
  bool float32 = false;  // --float32 (with --mlregtest-splits)
};

// --mlregtest-splits: per language a compile, MLRegTest's six splits and the
// transformer on every word (verify/scale.h); one JSONL row each, appended to
// --out as it is done (a rerun skips the languages already there), or to
// stdout. Shards split the languages.
int verify_scale(Context& ctx, const Args& args) {
  verify::ScaleOptions o;
  o.size = args.scale;
  o.seed = args.options.seed;
  o.compile = args.compile.options(ctx);
  o.beta = args.compile.beta_override();
  o.mode = args.mode;
  o.precision = args.precision;
  o.threads = args.threads > 0 ? args.threads : default_threads();
  o.max_memory = ctx.max_memory;
  o.max_states = ctx.max_states;
  o.beta_text = args.compile.beta;
  o.float32 = args.float32;
  // Each .att file is read and built in its turn: a malformed one is an error
  // row, not the end of the run, and a resumed run does not parse the done ones.
  const std::vector<PendingLanguage> languages = select_pending(ctx.load_catalog(), args.selection, ctx.max_states);
  const Shard shard = args.shard.empty() ? Shard{} : parse_shard(args.shard);
  const auto [lo, hi] = shard_range(languages.size(), shard);
  std::map<std::string, std::string> status;  // this shard's languages: resumed and run
  if (!args.out.empty()) status = verify::completed_languages(args.out, o);
  std::size_t resumed = 0, run = 0;  // run: languages checked here (an error row is not a check, so not in the rate)
  std::ostream& summary = args.out.empty() ? ctx.err : ctx.out;
  const std::unique_ptr<util::Progress> progress = ctx.progress("verify --mlregtest-splits " + o.size);
  o.progress = progress.get();
  const auto t0 = std::chrono::steady_clock::now();
  for (std::size_t i = lo; i < hi; ++i) {
    const PendingLanguage& language = languages[i];
    if (status.contains(language.name)) {
      ++resumed;
      continue;
    }
    progress->set_label(fmt::format("verify --mlregtest-splits {} {} ({}/{})", o.size, language.name, i - lo + 1, hi - lo));
    const nlohmann::ordered_json row = verify::verify_at_scale(language.name, language.build, o);
    if (args.out.empty()) ctx.out << row.dump() << "\n" << std::flush;
    else verify::append_row(args.out, row);
    status[language.name] = row["status"].get<std::string>();
    if (status[language.name] != "error") ++run;
  }
  progress->finish();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::map<std::string, std::size_t> counts;
  for (std::size_t i = lo; i < hi; ++i) ++counts[status[languages[i].name]];
  summary << fmt::format("verify --mlregtest-splits {}: {} languages{}: {} agree, {} disagree, {} not star-free, {} errors{}\n",
                         o.size, hi - lo, shard.whole() ? "" : " (shard " + shard.str() + ")", counts["agree"],
                         counts["disagree"], counts["not-star-free"], counts["error"],
                         resumed ? fmt::format(" ({} already in {})", resumed, args.out) : "");
  if (run > 0) {
    // The rate this run measured, and what it means for MLRegTest's 1,410 star-free automata.
    const double each = seconds / static_cast<double>(run);
    ctx.err << fmt::format("softhat: {} languages in {:.1f} s ({:.2f} s each, {} threads); at this rate 1,410 automata "
                           "take {:.1f} min\n",
                           run, seconds, each, o.threads, 1410 * each / 60);
  }
  if (counts["disagree"] > 0) return kExitDisagreement;
  // A language that could not be checked is an input error (exit 2); its row
  // stays in --out, so remove it to retry (e.g. with a larger --max-memory).
  if (counts["error"] > 0) return kExitInput;
  return kExitOk;
}

// --program: the compiled S-RASP program against its direct oracle, the
// interpreter, the exact AHAT and softmax at the scheduled beta(N).
int verify_program(Context& ctx, const Args& args, std::optional<std::size_t> max_len, bool has_samples) {
  if (args.selection.any() || !args.model.empty() || !args.shard.empty()) {
    throw InputError("verify: give --program alone, not with --model, --shard or a language");
  }
  const rasp::Program program = rasp::load_program(args.program);
  const rasp::CompiledProgram compiled = rasp::compile_program(program, ctx.max_memory);
  rasp::ProgramCheckOptions options;
  options.max_len = max_len;
  if (!args.lengths.empty()) options.random_lengths = words::parse_length_list(args.lengths);
  if (has_samples) options.samples = args.options.samples;
  options.seed = args.options.seed;
  options.max_memory = ctx.max_memory;
  options.threads = args.threads > 0 ? args.threads : default_threads();
  std::string oracle = args.oracle;
  if (oracle.empty()) {  // the example's own oracle, by file stem, if it has one
    const std::string stem = std::filesystem::path(args.program).stem().string();
    oracle = rasp::direct_oracle(stem) ? stem : "none";
  }
  const std::unique_ptr<util::Progress> progress = ctx.progress("verify " + program.name, "word sets");
  options.progress = progress.get();
  const rasp::ProgramCheck check = rasp::verify_program(program, compiled, oracle == "none" ? "" : oracle, options);
  progress->finish();
  args.json.table(ctx, rasp::format_program_check(check));
  nlohmann::ordered_json json;
  json["reports"] = nlohmann::ordered_json::array({rasp::program_check_json(check)});
  json["ok"] = check.ok();
  args.json.write(ctx, json);
  return check.ok() ? kExitOk : kExitDisagreement;
}
// verify --model: a model that claims float32 (compile --float32) is tested
// in float32 unless --precision says otherwise, so verify checks the claim.
// The claim was measured in softmax at the model's own beta: other runs stay
// in double.
void choose_precision(Context& ctx, Args& args, bool precision_given) {
  const std::optional<model::Float32Claim>& claim = args.options.model->config.float32;
  const bool claim_applies = args.mode == model::AttentionMode::kSoftmax && args.compile.beta.empty();
  if (claim && !precision_given && claim_applies) {
    args.options.precision = model::Precision::kFloat;
    const std::size_t longest = args.options.lengths.empty() ? 0
        : *std::max_element(args.options.lengths.begin(), args.options.lengths.end());
    ctx.err << fmt::format("softhat: {} claims float32 up to length {}: verifying in float32{}\n", args.model,
                           claim->max_length,
                           longest > claim->max_length
                               ? fmt::format(" (words up to {} symbols, beyond the claim)", longest) : "");
  } else if (claim && !precision_given) {
    ctx.err << fmt::format("softhat: note: {} claims float32 in softmax at its own beta only: verifying in "
                           "double\n", args.model);
  } else if (!claim && args.options.precision == model::Precision::kFloat) {
    ctx.err << fmt::format("softhat: note: {} makes no float32 claim (compile --float32 checks and records one)\n",
                           args.model);
  }
}

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
      "--lengths",
      [args](const std::string& text) {
        args->lengths = text;
        args->options.lengths = words::parse_length_list(text);
      },
      "lengths of the random words, e.g. 100,1000 or 20-50 (default 100,1000; with --program each random word's "
      "length is drawn from the list, default 20-100, 20-40 for padded programs)");
  auto* samples = sub->add_option("--per-length,--samples", args->options.samples,
                                  "random words per length (default 100; with --program in all, default 200)");
  sub->add_option("--seed", args->options.seed, "random seed (fixed default)");
  sub->add_option("--model", args->model, "test this model file (compiled or not) instead of the language's "
                                          "compiled transformer, on the same words");
  auto* mode = add_enum_option(sub, "--mode", args->mode, kModeNames, "softmax, or hard (--program checks both)");
  auto* precision = add_enum_option(sub, "--precision", args->precision, kPrecisionNames, "double or float");
  args->json.add_to(sub);
  sub->add_option("--threads", args->threads, "words tested in parallel (default: the cores available); the report "
                                              "does not depend on it")
      ->check(CLI::Range(1, 1024));
  sub->add_option("--shard", args->shard, "K/N: test only this shard's part of every row (combine with `softhat merge`)");
  sub->add_option("--program", args->program,
                  "an S-RASP program (.srasp): compile it and check oracle, interpreter, exact AHAT and softmax at "
                  "the scheduled beta(N) on every word up to --max-len (default 6, 5 for alphabets of more than 4 "
                  "symbols) and on --samples random words");
  sub->add_option("--oracle", args->oracle,
                  "with --program: the direct oracle to check against (default: the one named like the program's file, "
                  "else none; 'none': the interpreter is the reference)");
  sub->add_option("--mlregtest-splits", args->scale,
                  "small, mid or large: per language compile, generate MLRegTest's six splits of that size and run "
                  "the transformer on every word; one JSONL row per language (to --out, or stdout)")
      ->check(CLI::IsMember({"small", "mid", "large"}));
  sub->add_option("--out", args->out,
                  "with --mlregtest-splits: append each language's row to this JSONL file as it is done; a rerun "
                  "skips the languages already there (resume)");
  auto* float32 = sub->add_flag(
      "--float32", args->float32,
      "with --mlregtest-splits: per language check the float32 claim as compile --float32 does, then run the splits "
      "in float32 where it holds (double where not); rows record the check");
  sub->callback([&runner, args, max_len, samples, mode, precision, float32] {
    if (float32->count()) {
      if (args->scale.empty()) {
        throw CLI::ValidationError("--float32", "only with --mlregtest-splits (compile --float32 records the claim in a "
                                                "model file; verify --model tests it)");
      }
      if (precision->count()) throw CLI::ValidationError("--float32", "chooses the precision per language: drop --precision");
      if (args->mode != model::AttentionMode::kSoftmax) throw CLI::ValidationError("--float32", "checks softmax: drop --mode hard");
    }
    if (!args->scale.empty()) {
      if (!args->program.empty() || !args->model.empty() || max_len->count() || samples->count() ||
          !args->lengths.empty() || args->json.given()) {
        throw CLI::ValidationError("--mlregtest-splits", "sets the words and writes JSONL rows: drop --program, --model, "
                         "--max-len, --samples, --lengths and --json");
      }
      runner = [args](Context& ctx) { return verify_scale(ctx, *args); };
      return;
    }
    if (!args->out.empty()) throw CLI::ValidationError("--out", "only with --mlregtest-splits");
    if (!args->program.empty()) {
      // The program's check is its own: both modes, double precision, the compiler's beta(N).
      for (const CLI::Option* o : {mode, precision}) {
        if (o->count()) throw CLI::ValidationError(o->get_name(), "not with --program");
      }
      if (!args->compile.beta.empty()) throw CLI::ValidationError("--beta", "not with --program (the compiler sets beta)");
      const std::optional<std::size_t> len = max_len->count() ? std::optional<std::size_t>(args->max_len) : std::nullopt;
      const bool has_samples = samples->count() > 0;  // else 200 in all, not the languages' 100 per length
      runner = [args, len, has_samples](Context& ctx) { return verify_program(ctx, *args, len, has_samples); };
      return;
    }
    if (!args->oracle.empty()) throw CLI::ValidationError("--oracle", "only with --program");
    if (max_len->count()) args->options.max_len = args->max_len;
    const bool precision_given = precision->count() > 0;
    runner = [args, precision_given](Context& ctx) {
      args->options.compile = args->compile.options(ctx);
      args->options.beta = args->compile.beta_override();
      args->options.mode = args->mode;
      args->options.precision = args->precision;
      args->options.threads = args->threads > 0 ? args->threads : default_threads();
      args->options.max_memory = ctx.max_memory;
      if (!args->shard.empty()) args->options.shard = parse_shard(args->shard);
      if (!args->model.empty()) {
        args->options.model = std::make_shared<const model::Transformer>(io::load_model(args->model));
        args->options.model_name = args->model;
        choose_precision(ctx, *args, precision_given);
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
