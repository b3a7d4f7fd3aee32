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
  io::WordFormat format = io::WordFormat::kTsv;
  model::AttentionMode mode = model::AttentionMode::kSoftmax;
  model::Precision precision = model::Precision::kDouble;
  bool compare_labels = false;
};
}  // namespace

int stream_language(Context& ctx, const lang::Language& language, const CompileArgs& compile,
                    io::WordFormat format, model::AttentionMode mode, model::Precision precision,
                    bool compare_labels) {
  compile::Acceptor acceptor = compile::build_acceptor(language, compile.options());
  const model::Engine engine(std::move(acceptor.model), precision);
  model::Runner words(engine);
  model::RunOptions options;
  options.mode = mode;
  options.beta = compile.beta_override();
  options.max_memory = ctx.max_memory;
  options.trace = format == io::WordFormat::kJsonl;
  const auto summary = io::classify_stream(ctx.in, ctx.out, stream_options(ctx, language.alphabet(), format),
                                           [&](std::string_view w) { return words.run(w, options); });
  return finish_stream(ctx, summary, compare_labels);
}

void setup_classify(CLI::App& app, Runner& runner) {
  CLI::App* sub = app.add_subcommand("classify", "classify words from stdin with the compiled transformer");
  auto args = std::make_shared<Args>();
  add_selection(sub, args->selection, Languages::kOne);
  add_compile_options(sub, args->compile, true);
  add_enum_option(sub, "--format", args->format, kFormatNames, "tsv (word, TRUE/FALSE) or jsonl (with margins)");
  add_enum_option(sub, "--mode", args->mode, kModeNames, "softmax, or hard (each head's declared hard attention)");
  add_enum_option(sub, "--precision", args->precision, kPrecisionNames, "double or float");
  add_compare_labels(sub, args->compare_labels);
  sub->callback([&runner, args] {
    runner = [args](Context& ctx) {
      const lang::Language language = select_one(ctx, args->selection, true);
      return stream_language(ctx, language, args->compile, args->format, args->mode, args->precision,
                             args->compare_labels);
    };
  });
}

}  // namespace softhat::cli
