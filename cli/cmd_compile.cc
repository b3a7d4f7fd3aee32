// softhat compile: formula -> model file (safetensors, written whole or not at all).
#include <fmt/format.h>

#include <memory>
#include <ostream>

#include "cli/command.h"
#include "compile/acceptor.h"
#include "io/model_file.h"

namespace softhat::cli {

namespace {
struct Args {
  cli::Selection selection;
  CompileArgs compile;
  std::string output;
};
}  // namespace

void setup_compile(CLI::App& app, Runner& runner) {
  CLI::App* sub = app.add_subcommand("compile", "compile a language's formula into a softmax transformer file");
  auto args = std::make_shared<Args>();
  add_selection(sub, args->selection, Languages::kOne);
  add_compile_options(sub, args->compile, false);
  sub->add_option("-o,--output", args->output, "the model file to write (.safetensors)")->required();
  sub->callback([&runner, args] {
    runner = [args](Context& ctx) {
      const lang::Language language = select_one(ctx, args->selection, true);
      const compile::Acceptor a = compile::build_acceptor(language, args->compile.options());
      io::save_model(a.model, args->output);
      int heads = 0;
      for (const model::LayerConfig& l : a.model.config.layers) heads += static_cast<int>(l.heads.size());
      ctx.err << fmt::format("softhat: wrote {} ({}; {} layers, {} heads, width {}, beta(n) = {})\n", args->output,
                             a.origin, a.model.config.layers.size(), heads, a.model.config.d_model,
                             a.model.config.beta.describe());
      return 0;
    };
  });
}

}  // namespace softhat::cli
