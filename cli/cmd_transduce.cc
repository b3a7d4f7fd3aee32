// softhat transduce TASK: the task's transformer turns each word from stdin
// into its output string, one symbol per input symbol (k-hop induction heads:
// task/khop.h, compile/khop.h).
#include <fmt/format.h>

#include <memory>
#include <ostream>

#include "cli/command.h"
#include "compile/acceptor.h"
#include "rasp/program.h"
#include "util/error.h"

namespace softhat::cli {

namespace {
struct Args {
  cli::Selection selection;
  CompileArgs compile;
  StreamArgs stream;
  model::Precision precision = model::Precision::kDouble;
  bool oracle = false;
  std::string program;  // --program: an S-RASP program's compiled transformer
  model::AttentionMode mode = model::AttentionMode::kSoftmax;
};
}  // namespace

void setup_transduce(CLI::App& app, Runner& runner) {
  CLI::App* sub = app.add_subcommand("transduce", "transduce words from stdin with a task's transformer (khop-2, "
                                                  "or --task khop --hops K --alphabet-size S)");
  auto args = std::make_shared<Args>();
  add_selection(sub, args->selection, Languages::kOne);
  add_compile_options(sub, args->compile, true);
  add_stream_options(sub, args->stream, "word, output");
  add_enum_option(sub, "--precision", args->precision, kPrecisionNames, "double or float");
  sub->add_option("--program", args->program, "an S-RASP program (.srasp): its compiled transformer, instead of a task");
  add_enum_option(sub, "--mode", args->mode, kModeNames,
                  "with --program: softmax at the scheduled beta(N), or hard (the exact average-hard transformer)");
  sub->callback([&runner, args] {
    runner = [args](Context& ctx) {
      if (!args->program.empty()) {
        if (args->selection.any()) throw InputError("transduce: give a task or --program, not both");
        return stream_compiled(ctx, rasp::load_program(args->program), args->stream, false, args->mode,
                               args->compile.beta_override());
      }
      if (args->mode != model::AttentionMode::kSoftmax) throw InputError("transduce: --mode hard needs --program");
      const lang::Language language = select_one(ctx, args->selection, false);
      if (!language.is_task()) {
        throw InputError(fmt::format("'{}' is a language, not a transduction task: use `softhat classify {}`",
                                     language.name(), language.name()));
      }
      return stream_language(ctx, language, args->compile, args->stream, model::AttentionMode::kSoftmax, args->precision);
    };
  });
}

}  // namespace softhat::cli
