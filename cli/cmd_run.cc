// softhat run --model FILE: classify words from stdin with a model file alone.
#include <fmt/format.h>

#include <memory>
#include <ostream>
#include <vector>

#include "cli/command.h"
#include "io/model_file.h"
#include "io/word_stream.h"
#include "model/forward.h"
#include "util/error.h"

namespace softhat::cli {

namespace {
struct RunArgs {
  std::string model;
  StreamArgs stream;
  model::AttentionMode mode = model::AttentionMode::kSoftmax;
  model::Precision precision = model::Precision::kDouble;
  std::string beta;  // empty: the model's schedule
};
}  // namespace

int finish_stream(Context& ctx, const io::StreamSummary& s, bool compare_labels) {
  if (compare_labels) {
    const std::size_t agree = s.labelled - s.label_differences;
    ctx.err << fmt::format("softhat: labels: {} of {} agree ({:.2f}%)", agree, s.labelled,
                           s.labelled ? 100.0 * static_cast<double>(agree) / static_cast<double>(s.labelled) : 100.0);
    if (s.label_differences) ctx.err << fmt::format("; first difference: line {}", s.first_difference_line);
    if (s.labelled < s.lines) ctx.err << fmt::format("; {} lines had no label", s.lines - s.labelled);
    ctx.err << "\n";
  }
  if (s.errors) {
    ctx.err << fmt::format("softhat: {} of {} lines had errors (first: line {})\n", s.errors, s.lines,
                           s.first_error_line);
    return kExitInput;
  }
  return compare_labels && s.label_differences ? kExitDisagreement : kExitOk;
}

void add_stream_options(CLI::App* app, StreamArgs& args, const std::string& columns) {
  add_enum_option(app, "--format", args.format, kFormatNames, fmt::format("tsv ({}) or jsonl (with margins)", columns));
  app->add_flag("--header", args.header, "tsv: a first line naming the columns (word<TAB>accepted, or "
                                         "word<TAB>output); a header line read first is always skipped");
  app->add_flag("--compare-labels", args.compare_labels,
                "input lines word<TAB>label (a corpus): a final agreement summary on stderr, exit 1 if any label "
                "differs");
  app->add_option("--threads", args.threads,
                  "words classified in parallel (default: the cores available); the output is the same for any "
                  "count")
      ->check(CLI::Range(1, 1024));
}

std::string limit_advice(Limit limit) {
  switch (limit) {
    case Limit::kFixed: return "";
    case Limit::kStates: return "; raise --max-states";
    case Limit::kMemory: return "; raise --max-memory";
    case Limit::kLength: return "; raise --max-length";
  }
  return "";
}

io::StreamOptions stream_options(const Context& ctx, std::string_view alphabet, const StreamArgs& stream,
                                 bool transducer) {
  return {.alphabet = alphabet,
          .format = stream.format,
          .emit_state = stream.emit_state,
          .max_length = ctx.max_length,
          .advice = limit_advice,
          .header = stream.header ? (transducer ? "word\toutput" : "word\taccepted") : "",
          .progress = nullptr};
}

int stream_threads(const StreamArgs& stream) { return stream.threads > 0 ? stream.threads : default_threads(); }

int stream_model(Context& ctx, const model::Engine& engine, const StreamArgs& stream, model::RunOptions options,
                 const std::string& what) {
  const int threads = stream_threads(stream);
  std::vector<model::Runner> runners;  // one per thread: each keeps its own buffers
  runners.reserve(static_cast<std::size_t>(threads));
  for (int t = 0; t < threads; ++t) runners.emplace_back(engine);
  options.trace = stream.format == io::WordFormat::kJsonl;
  options.keep_state = stream.emit_state;
  options.max_memory = ctx.max_memory;
  const model::ModelConfig& config = engine.model().config;
  io::StreamOptions s = stream_options(ctx, config.alphabet, stream, config.transducer.has_value());
  const std::unique_ptr<util::Progress> progress = ctx.progress(what, "lines");
  s.progress = progress.get();
  s.threads = threads;
  const auto summary = io::classify_stream(ctx.in, ctx.out, s, [&](int t, std::string_view w) {
    return runners[static_cast<std::size_t>(t)].run(w, options);
  });
  progress->finish();
  return finish_stream(ctx, summary, stream.compare_labels);
}

void setup_run(CLI::App& app, Runner& runner) {
  CLI::App* sub = app.add_subcommand("run", "classify words from stdin with a model file alone");
  auto args = std::make_shared<RunArgs>();
  sub->add_option("--model", args->model, "a softhat model file (.safetensors)")->required();
  add_stream_options(sub, args->stream, "word, TRUE/FALSE or the output");
  add_enum_option(sub, "--mode", args->mode, kModeNames, "softmax, or hard (each head's declared hard attention)");
  add_enum_option(sub, "--precision", args->precision, kPrecisionNames, "double or float (scores accumulate in double)");
  sub->add_flag("--emit-state", args->stream.emit_state, "jsonl: add the final residual vector at position n");
  sub->add_option("--beta", args->beta,
                  "override the model's inverse temperature schedule, e.g. 1 or 3*(n+1) (softmax; the file is not changed)");
  sub->callback([&runner, args] {
    runner = [args](Context& ctx) {
      model::RunOptions options;
      options.beta = parse_beta_flag(args->beta);  // before the model is read: a bad flag is a usage error
      const model::Engine engine(io::load_model(args->model), args->precision);
      options.mode = args->mode;
      return stream_model(ctx, engine, args->stream, options, "run " + args->model);
    };
  });
}

}  // namespace softhat::cli
