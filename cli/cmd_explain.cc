// softhat explain: every head's attention on one word, as text or SVG
// heatmaps, hard and softmax side by side (lib/explain/explain.h).
#include <fmt/format.h>

#include <memory>
#include <ostream>

#include "cli/command.h"
#include "cli/json_option.h"
#include "compile/acceptor.h"
#include "explain/explain.h"
#include "io/file_util.h"
#include "io/model_file.h"
#include "io/word_stream.h"
#include "util/error.h"
#include "util/memory.h"
#include "util/symbols.h"

namespace softhat::cli {

namespace {
// Which attention the maps show.
enum class Shown { kHard, kSoftmax, kBoth };

struct Args {
  std::vector<std::string> positionals;  // [LANG] WORD
  cli::Selection selection;
  CompileArgs compile;
  std::string model;
  std::string word;
  Shown mode = Shown::kBoth;
  std::string svg;
  std::size_t max_length = 200;
  JsonOption json;
};
}  // namespace

void setup_explain(CLI::App& app, Runner& runner) {
  CLI::App* sub = app.add_subcommand("explain", "every head's attention on one word: text, or SVG heatmaps");
  auto args = std::make_shared<Args>();
  sub->add_option("positionals", args->positionals, "LANG WORD (a catalogue language and a word), or WORD with "
                                                     "--model, --formula, --regex or --att")
      ->expected(0, 2);
  add_language_flags(sub, args->selection);
  sub->get_option("--att")->expected(1)->allow_extra_args(false);  // one file: `explain --att FILE WORD` leaves WORD positional
  add_compile_options(sub, args->compile, true);
  sub->add_option("--model", args->model, "a model file instead of a language");
  auto* word = sub->add_option("--word", args->word, "the word to explain (instead of the positional WORD)");
  add_enum_option(sub, "--mode", args->mode, EnumNames<Shown>{{"hard", Shown::kHard}, {"softmax", Shown::kSoftmax}, {"both", Shown::kBoth}},
                  "hard, softmax, or both (side by side; default)");
  sub->add_option("--svg", args->svg, "write heatmaps to this SVG file (else text on stdout)");
  args->json.add_to(sub);
  sub->add_option("--max-length", args->max_length, "refuse longer words (default 200; the picture is n x n)");
  sub->callback([&runner, args, word] {
    const bool word_flag = word->count() > 0;
    runner = [args, word_flag](Context& ctx) {
      // Positionals: LANG WORD, or WORD alone with --model/--formula (or with --word: LANG alone).
      const bool bare = !args->model.empty() || args->selection.any();
      const std::size_t want = (bare ? 0 : 1) + (word_flag ? 0 : 1);
      if (args->positionals.size() != want) {
        throw InputError(bare ? "explain: give the word (explain --model FILE WORD, or --formula/--regex/--att ... WORD)"
                              : "explain: give a language and a word (explain LANG WORD)");
      }
      if (!bare) args->selection.names = {args->positionals[0]};
      if (!word_flag) args->word = args->positionals.back();
      Subject subject = select_subject(ctx, args->selection, args->compile, args->model);
      model::Transformer& model = subject.model;
      if (const std::size_t n = sym::count_code_points(args->word); n > args->max_length) {
        throw InputError(fmt::format("the word has {} symbols; explain draws n x n cells per head and stops at "
                                     "--max-length {}",
                                     n, args->max_length));
      }
      std::string codes;
      if (auto bad = io::decode_word(args->word, model.config.alphabet, codes)) throw InputError(*bad);
      std::vector<model::AttentionMode> modes;
      if (args->mode != Shown::kSoftmax) modes.push_back(model::AttentionMode::kHard);
      if (args->mode != Shown::kHard) modes.push_back(model::AttentionMode::kSoftmax);
      // Every head's (n+1) x (n+1) map per mode, kept with the engine's own buffers.
      std::size_t heads = 0;
      for (const model::LayerConfig& l : model.config.layers) heads += l.heads.size();
      const std::size_t cells = util::saturating_product({codes.size() + 1, codes.size() + 1});
      model::RunOptions kept;
      kept.keep_layer_inputs = true;
      util::check_memory(util::saturating_sum({util::saturating_product({cells, heads, modes.size(), 16}),
                                                model::word_memory_bytes(model, codes.size(), kept)}),
                         ctx.max_memory, fmt::format("the attention maps of a word of {} symbols", codes.size()));
      const model::Engine engine(std::move(model));
      const explain::Explanation e =
          explain::explain(engine, subject.name, codes, modes, args->compile.beta_override());
      if (args->svg.empty()) {
        args->json.table(ctx, explain::explain_text(e));
      } else {
        io::write_file_atomically(args->svg, explain::explain_svg(e));
        ctx.err << fmt::format("softhat: wrote {}\n", args->svg);
      }
      args->json.write(ctx, explain::explain_json(e));
      return kExitOk;
    };
  });
}

}  // namespace softhat::cli
