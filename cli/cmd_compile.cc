// softhat compile: formula -> model file (safetensors, written whole or not at all).
#include <fmt/format.h>

#include <memory>
#include <ostream>

#include "cli/command.h"
#include "io/model_file.h"

namespace softhat::cli {

namespace {
struct Args {
  lang::Selection selection;
  CompileArgs compile;
  std::string output;
};
}  // namespace

void setup_compile(CLI::App& app, Runner& runner) {
  CLI::App* sub = app.add_subcommand("compile", "compile a language's formula into a softmax transformer file");
  auto args = std::make_shared<Args>();
  add_selection(sub, args->selection, false);
  add_compile_options(sub, args->compile, false);
  sub->add_option("-o,--output", args->output, "the model file to write (.safetensors)")->required();
  sub->callback([&runner, args] {
    runner = [args](Context& ctx) {
      const lang::Language language = select_one(ctx, args->selection);
      const compile::Compiled c = compile::compile_formula(*language.formula, language.alphabet(), args->compile.options());
      io::save_model(c.model, args->output);
      ctx.err << fmt::format("softhat: wrote {} ({} layers, {} heads, width {}, beta(n) = {})\n", args->output,
                             c.plan.layers.size(), c.plan.heads(), c.plan.coords.size(), c.model.config.beta.describe());
      return 0;
    };
  });
}

}  // namespace softhat::cli
