// softhat classify: compile a language and classify words from stdin.
#include <memory>
#include <ostream>

#include "cli/command.h"
#include "compile/acceptor.h"

namespace softhat::cli {

namespace {
struct Args {
  lang::Selection selection;
  CompileArgs compile;
  std::string format = "tsv";
  std::string mode = "softmax";
  std::string precision = "double";
};
}  // namespace

int stream_language(Context& ctx, const lang::Language& language, const CompileArgs& compile,
                    const std::string& format_name, const std::string& mode, const std::string& precision) {
  compile::Acceptor acceptor = compile::build_acceptor(language, compile.options());
  const model::Engine engine(std::move(acceptor.model), parse_precision(precision));
  model::Runner words(engine);
  model::RunOptions options;
  options.mode = parse_mode(mode);
  options.beta = compile.beta_override();
  options.max_memory = ctx.max_memory;
  const io::WordFormat format = io::parse_word_format(format_name);
  options.trace = format == io::WordFormat::kJsonl;
  const auto summary = io::classify_stream(ctx.in, ctx.out, language.alphabet(), format, false, ctx.max_length,
                                           [&](std::string_view w) { return words.run(w, options); });
  return finish_stream(ctx, summary);
}

void setup_classify(CLI::App& app, Runner& runner) {
  CLI::App* sub = app.add_subcommand("classify", "classify words from stdin with the compiled transformer");
  auto args = std::make_shared<Args>();
  add_selection(sub, args->selection);
  add_compile_options(sub, args->compile, true);
  sub->add_option("--format", args->format, "tsv (word, TRUE/FALSE) or jsonl (with margins)")
      ->check(CLI::IsMember({"tsv", "jsonl"}));
  sub->add_option("--mode", args->mode, "softmax, or hard (each head's declared hard attention)")
      ->check(CLI::IsMember({"softmax", "hard"}));
  sub->add_option("--precision", args->precision, "double or float")->check(CLI::IsMember({"double", "float"}));
  sub->callback([&runner, args] {
    runner = [args](Context& ctx) {
      const lang::Language language = select_one(ctx, args->selection, true);
      return stream_language(ctx, language, args->compile, args->format, args->mode, args->precision);
    };
  });
}

}  // namespace softhat::cli
