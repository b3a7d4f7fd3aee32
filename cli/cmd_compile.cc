// softhat compile: formula -> model file (safetensors, written whole or not at all).
#include <fmt/format.h>

#include <memory>
#include <ostream>

#include "cli/command.h"
#include "compile/acceptor.h"
#include "io/model_file.h"
#include "verify/float32.h"

namespace softhat::cli {

namespace {
struct Args {
  cli::Selection selection;
  CompileArgs compile;
  std::string output;
  bool float32 = false;
  verify::Float32Options float32_options;
};
}  // namespace

void setup_compile(CLI::App& app, Runner& runner) {
  CLI::App* sub = app.add_subcommand("compile", "compile a language's formula into a softmax transformer file");
  auto args = std::make_shared<Args>();
  add_selection(sub, args->selection, Languages::kOne);
  add_compile_options(sub, args->compile, false);
  sub->add_option("-o,--output", args->output, "the model file to write (.safetensors)")->required();
  sub->add_flag("--float32", args->float32,
                "check the model in float32 against double (every short word, and balanced words up to "
                "--float32-max-len) and record the claim in the file if every verdict is the same and every margin "
                "is at least 8 times the difference; exit 1 (the model written without it) if not");
  auto* f32_len = sub->add_option("--float32-max-len", args->float32_options.max_len,
                                  "with --float32: the longest words checked (default 128)")
                      ->check(CLI::Range(1, 100000));
  auto* f32_samples = sub->add_option("--float32-samples", args->float32_options.samples,
                                      "with --float32: balanced words per length (default 100)")
                          ->check(CLI::Range(1, 1000000));
  sub->callback([&runner, args, f32_len, f32_samples] {
    if (!args->float32 && (f32_len->count() || f32_samples->count())) {
      throw CLI::ValidationError(f32_len->count() ? "--float32-max-len" : "--float32-samples", "only with --float32");
    }
    runner = [args](Context& ctx) {
      const lang::Language language = select_one(ctx, args->selection, true);
      compile::Acceptor a = compile::build_acceptor(language, args->compile.options(ctx));
      int status = kExitOk;
      if (args->float32) {
        verify::Float32Options o = args->float32_options;
        o.threads = default_threads();
        o.run.max_memory = ctx.max_memory;
        const verify::Float32Result r = verify::check_float32(a.model, language, o);
        if (r.holds) {
          a.model.config.float32 = r.claim;
          ctx.err << fmt::format("softhat: float32 claimed up to length {}: {} words, smallest margin {:.3g}, largest "
                                 "float32 deviation {:.3g} at the readout, {:.3g} in the residual stream\n",
                                 r.claim.max_length, r.claim.words, r.claim.min_margin, r.claim.max_deviation,
                                 r.claim.max_state_deviation);
        } else {
          ctx.err << fmt::format("softhat: float32 not claimed: {}\n", r.failure);
          status = kExitDisagreement;
        }
      }
      io::save_model(a.model, args->output);
      int heads = 0;
      for (const model::LayerConfig& l : a.model.config.layers) heads += static_cast<int>(l.heads.size());
      ctx.err << fmt::format("softhat: wrote {} ({}; {} layers, {} heads, width {}, beta(n) = {})\n", args->output,
                             a.origin, a.model.config.layers.size(), heads, a.model.config.d_model,
                             a.model.config.beta.describe());
      return status;
    };
  });
}

}  // namespace softhat::cli
