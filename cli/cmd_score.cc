// softhat score CORPUS... (--predictions FILE | --model M): accuracy per
// split and length of predictions, or of a model run here, against a
// labelled corpus (score/score.h).
#include <fmt/format.h>

#include <memory>
#include <ostream>

#include "cli/command.h"
#include "cli/json_option.h"
#include "io/file_util.h"
#include "io/model_file.h"
#include "io/word_stream.h"
#include "model/forward.h"
#include "score/score.h"
#include "util/error.h"
#include "util/interrupt.h"
#include "util/symbols.h"

namespace softhat::cli {

namespace {
struct Args {
  std::vector<std::string> corpus;
  std::string predictions;
  std::string model;
  model::AttentionMode mode = model::AttentionMode::kSoftmax;
  model::Precision precision = model::Precision::kDouble;
  std::string svg;
  JsonOption json;
};

// The model's verdict on every corpus word ("TRUE"/"FALSE", or a
// transducer's output), as `run` would print it.
std::vector<std::string> run_model(Context& ctx, const Args& a, const score::ScoreCorpus& corpus) {
  const model::Engine engine(io::load_model(a.model), a.precision);
  model::Runner runner(engine);
  model::RunOptions options;
  options.mode = a.mode;
  options.max_memory = ctx.max_memory;
  const std::string& alphabet = engine.model().config.alphabet;
  // Every word is decoded first (the first bad one, in corpus order, is the
  // error), then run in order of length (model::length_order).
  std::vector<std::string> codes(corpus.items.size());
  for (std::size_t i = 0; i < corpus.items.size(); ++i) {
    const score::Item& it = corpus.items[i];
    if (auto error = io::decode_word(it.word, alphabet, codes[i])) {
      throw InputError(fmt::format("{}:{}: {} (the model's alphabet)", it.file, it.line, *error));
    }
  }
  std::vector<std::string> out(corpus.items.size());
  const std::unique_ptr<util::Progress> progress = ctx.progress("score " + a.model);
  progress->add_total(corpus.items.size());
  for (const std::size_t i : model::length_order(0, codes.size(), [&](std::size_t k) { return codes[k].size(); })) {
    throw_if_interrupted();
    progress->advance();
    const model::RunResult r = runner.run(codes[i], options);
    out[i] = r.output ? sym::encode(*r.output) : r.accepted ? "TRUE" : "FALSE";
  }
  return out;
}
}  // namespace

void setup_score(CLI::App& app, Runner& runner) {
  CLI::App* sub = app.add_subcommand(
      "score", "accuracy per split and per length of predictions (or of a model) against a labelled corpus");
  auto args = std::make_shared<Args>();
  sub->add_option("corpus", args->corpus, "a corpus folder (generate --out) or TSV/JSONL files, one split each")
      ->required();
  sub->add_option("--predictions", args->predictions,
                  "word<TAB>TRUE|FALSE lines or JSONL with \"word\" and \"accepted\"/\"label\", in corpus order or "
                  "keyed by word (- for stdin)");
  sub->add_option("--model", args->model, "run this model file on the corpus instead");
  add_enum_option(sub, "--mode", args->mode, kModeNames, "--model: softmax (default) or hard");
  add_enum_option(sub, "--precision", args->precision, kPrecisionNames, "--model: double (default) or float");
  args->json.add_to(sub);
  sub->add_option("--svg", args->svg, "accuracy against length, split boundaries marked, to FILE");
  sub->callback([&runner, args] {
    runner = [args](Context& ctx) {
      if (args->predictions.empty() == args->model.empty()) throw InputError("give --predictions FILE or --model M (one)");
      const score::ScoreCorpus corpus = score::read_corpus(args->corpus);
      std::vector<std::string> predicted;
      if (!args->model.empty()) {
        predicted = run_model(ctx, *args, corpus);
      } else {
        const bool stdin_ = args->predictions == "-";
        std::string text;
        if (stdin_) text.assign(std::istreambuf_iterator<char>(ctx.in), std::istreambuf_iterator<char>());
        else text = io::read_file(args->predictions);
        predicted = score::match_predictions(corpus, text, stdin_ ? "stdin" : args->predictions);
      }
      const score::ScoreReport report = score::score(corpus, predicted);
      if (!args->svg.empty()) {
        io::write_file_atomically(args->svg, score::score_svg(report, args->model.empty() ? args->predictions : args->model));
      }
      args->json.table(ctx, score::format_score(report));
      args->json.write(ctx, score::score_json(report));
      return kExitOk;
    };
  });
}

}  // namespace softhat::cli
