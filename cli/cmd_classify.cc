// softhat classify: compile a language and classify words from stdin.
#include <memory>
#include <ostream>

#include "cli/command.h"
#include "compile/acceptor.h"

namespace softhat::cli {

namespace {
struct Args {
  cli::Selection selection;
  CompileArgs compile;
  StreamArgs stream;
  model::AttentionMode mode = model::AttentionMode::kSoftmax;
  model::Precision precision = model::Precision::kDouble;
  std::string program;  // --program: an S-RASP acceptor, run by its interpreter
};
}  // namespace

int stream_language(Context& ctx, const lang::Language& language, const CompileArgs& compile, const StreamArgs& stream,
                    model::AttentionMode mode, model::Precision precision) {
  compile::Acceptor acceptor = compile::build_acceptor(language, compile.options(ctx));
  const model::Engine engine(std::move(acceptor.model), precision);
  model::RunOptions options;
  options.mode = mode;
  options.beta = compile.beta_override();
  return stream_model(ctx, engine, stream, options, (language.is_task() ? "transduce " : "classify ") + language.name());
}

void setup_classify(CLI::App& app, Runner& runner) {
  CLI::App* sub = app.add_subcommand("classify", "classify words from stdin with the compiled transformer");
  auto args = std::make_shared<Args>();
  add_selection(sub, args->selection, Languages::kOne);
  add_compile_options(sub, args->compile, true);
  add_stream_options(sub, args->stream, "word, TRUE/FALSE");
  CLI::Option* mode = add_enum_option(sub, "--mode", args->mode, kModeNames,
                                      "softmax, or hard (each head's declared hard attention; with --program: the "
                                      "exact average-hard transformer)");
  add_enum_option(sub, "--precision", args->precision, kPrecisionNames, "double or float");
  sub->add_option("--program", args->program, "an S-RASP acceptor program (.srasp; output '1'/'0' at the last "
                                               "position), run by its reference interpreter, or with --mode by its "
                                               "compiled transformer, instead of a language");
  sub->callback([&runner, args, mode] {
    runner = [args, given = mode->count() > 0](Context& ctx) {
      if (!args->program.empty()) {
        if (args->selection.any()) {
          throw InputError("classify: give a language or --program, not both");
        }
        const rasp::Program program = rasp::load_program(args->program);
        if (given) return stream_compiled(ctx, program, args->stream, true, args->mode, args->compile.beta_override());
        return stream_program(ctx, program, args->stream, true);
      }
      const lang::Language language = select_one(ctx, args->selection, true);
      return stream_language(ctx, language, args->compile, args->stream, args->mode, args->precision);
    };
  });
}

}  // namespace softhat::cli
