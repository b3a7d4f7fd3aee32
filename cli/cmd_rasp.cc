// softhat rasp: S-RASP programs (docs/srasp.md). `rasp check PROG` parses and
// type-checks a program and reports its fragment and statements; `rasp run
// PROG` runs the reference interpreter on the words of stdin, one output per
// line, in the stream conventions of `transduce`.
#include <fmt/format.h>

#include <functional>
#include <memory>
#include <ostream>

#include "cli/command.h"
#include "io/model_file.h"
#include "rasp/compile.h"
#include "rasp/program.h"
#include "util/error.h"
#include "util/symbols.h"

namespace softhat::cli {

namespace {
struct Args {
  std::string program;
  std::string output;
  StreamArgs stream;
};

const char* kind_text(const rasp::Statement& st) {
  switch (st.kind) {
    case rasp::Statement::Kind::kMap: return "position-wise";
    case rasp::Statement::Kind::kPsum: return "psum";
    case rasp::Statement::Kind::kSelect: return st.dir == rasp::Dir::kLeftmost ? "lmost" : "rmost";
  }
  return "?";
}
}  // namespace

namespace {
std::size_t rasp_max_positions(const Context& ctx, const rasp::Program& program) {
  // Per position and statement: a value (8 bytes, or a short string: 32).
  return ctx.max_memory / (32 * (program.statements.size() + 1));
}
}  // namespace

namespace {
// An acceptor's verdicts from its outputs: exactly "1" or "0", else a per-line error.
// output(t, w) runs on thread t of --threads.
int stream_verdicts(Context& ctx, const rasp::Program& program, const StreamArgs& stream, const std::string& what,
                    const std::function<std::string(int, std::string_view)>& output) {
  io::StreamOptions s = stream_options(ctx, program.alphabet, stream, false);
  const std::unique_ptr<util::Progress> progress = ctx.progress(what, "lines");
  s.progress = progress.get();
  s.threads = stream_threads(stream);
  const auto summary = io::classify_stream(ctx.in, ctx.out, s, [&](int t, std::string_view w) {
    if (program.length_with_padding(w.size()) == 0) {
      throw std::invalid_argument("the empty word has no positions, so an acceptor program has no last position to "
                                  "decide it (docs/srasp.md)");
    }
    const std::string out = output(t, w);
    if (out != sym::declare("1") && out != sym::declare("0")) {
      throw std::invalid_argument(fmt::format("{} is not an acceptor: its output is '{}', not 1 or 0", program.name,
                                              sym::encode(out)));
    }
    model::RunResult r;
    r.accepted = out == sym::declare("1");
    return r;
  });
  progress->finish();
  return finish_stream(ctx, summary, stream.compare_labels);
}
}  // namespace

int stream_program(Context& ctx, const rasp::Program& program, const StreamArgs& stream, bool acceptor) {
  io::StreamOptions s = stream_options(ctx, program.alphabet, stream, !acceptor);
  const std::unique_ptr<util::Progress> progress = ctx.progress("rasp " + program.name, "lines");
  s.progress = progress.get();
  const std::size_t max_positions = rasp_max_positions(ctx, program);
  s.threads = stream_threads(stream);  // the interpreter reads the program only
  const auto summary = io::classify_stream(ctx.in, ctx.out, s, [&](int, std::string_view w) {
    model::RunResult r;
    if (acceptor) r.accepted = rasp::run_acceptor(program, w, max_positions);
    else r.output = rasp::run_program(program, w, max_positions);
    return r;
  });
  progress->finish();
  return finish_stream(ctx, summary, stream.compare_labels);
}

int stream_compiled(Context& ctx, const rasp::Program& program, const StreamArgs& stream, bool acceptor,
                    model::AttentionMode mode, const std::optional<model::BetaSchedule>& beta) {
  const rasp::CompiledProgram compiled = rasp::compile_program(program, ctx.max_memory);
  const std::string what = fmt::format("{} {} (compiled, {})", acceptor ? "classify" : "transduce", program.name,
                                       mode == model::AttentionMode::kHard ? "exact AHAT" : "softmax");
  if (mode == model::AttentionMode::kSoftmax) {
    const model::Engine engine(compiled.model);
    model::RunOptions options;
    options.beta = beta;
    if (!acceptor) return stream_model(ctx, engine, stream, options, what);
    std::vector<model::Runner> runners;  // one per thread
    const int threads = stream_threads(stream);
    runners.reserve(static_cast<std::size_t>(threads));
    for (int t = 0; t < threads; ++t) runners.emplace_back(engine);
    options.max_memory = ctx.max_memory;
    return stream_verdicts(ctx, program, stream, what, [&](int t, std::string_view w) {
      return *runners[static_cast<std::size_t>(t)].run(w, options).output;
    });
  }
  // Hard mode is the exact AHAT: rational scores, exact ties (docs/srasp.md).
  const model::ExactAhat ahat(compiled.model);
  const model::ModelConfig& config = compiled.model.config;
  // The exact run's JSONL fields: no temperature (beta null), all weight on
  // the argmax set, the exact minimum score gap over every head and row, and
  // the output margin of the exact final states.
  auto exact_run = [&](int, std::string_view w) {  // any thread: the exact run reads ahat only
    const std::size_t padded = config.program->padded_length(w.size());
    if (padded > rasp_max_positions(ctx, program)) {
      throw LimitError(fmt::format("N = {} positions need more than --max-memory", padded));
    }
    model::ExactRun run;
    model::RunResult r;
    r.output = rasp::exact_transduction(ahat, config, w, &run);
    model::read_transduction(*config.transducer, run.states, &r.min_symbol_margin);
    r.beta = model::kNoGap;
    r.margins = model::MarginStats{};
    r.margins->min_gap = run.min_gap();
    return r;
  };
  if (acceptor) {
    return stream_verdicts(ctx, program, stream, what, [&](int t, std::string_view w) { return *exact_run(t, w).output; });
  }
  io::StreamOptions s = stream_options(ctx, program.alphabet, stream, true);
  const std::unique_ptr<util::Progress> progress = ctx.progress(what, "lines");
  s.progress = progress.get();
  s.threads = stream_threads(stream);
  const auto summary = io::classify_stream(ctx.in, ctx.out, s, exact_run);
  progress->finish();
  return finish_stream(ctx, summary, stream.compare_labels);
}

void setup_rasp(CLI::App& app, Runner& runner) {
  CLI::App* rasp = app.add_subcommand("rasp", "S-RASP programs: check one, or run its reference interpreter");
  rasp->require_subcommand(1);
  auto args = std::make_shared<Args>();

  CLI::App* check = rasp->add_subcommand("check", "parse and type-check a program; print its fragment and statements");
  check->add_option("program", args->program, "the program (.srasp)")->required();
  check->callback([&runner, args] {
    runner = [args](Context& ctx) {
      const rasp::Program p = rasp::load_program(args->program);
      std::size_t attention = 0, psums = 0;
      for (const rasp::Statement& st : p.statements) {
        attention += st.kind == rasp::Statement::Kind::kSelect;
        psums += st.kind == rasp::Statement::Kind::kPsum;
      }
      ctx.out << fmt::format("{}: {}, {} statements ({} attention, {} psum), alphabet {}, output {}{}\n", p.name,
                             rasp::fragment_name(p.fragment), p.statements.size(), attention, psums,
                             sym::encode(p.alphabet), p.statements[static_cast<std::size_t>(p.output)].name,
                             p.pad ? ", padded" : "");
      for (const rasp::Statement& st : p.statements) {
        ctx.out << fmt::format("  {:>4}  {:<8} {:<4} {}{}\n", st.line, st.name, rasp::type_name(st.type), kind_text(st),
                               st.kind == rasp::Statement::Kind::kSelect ? std::string(" ") + rasp::mask_text(st.mask) : "");
      }
      return kExitOk;
    };
  });

  CLI::App* compile = rasp->add_subcommand("compile", "compile a program to an average-hard transformer; print its "
                                                      "layer plan and gap table, and write it with -o");
  compile->add_option("program", args->program, "the program (.srasp)")->required();
  compile->add_option("-o,--output", args->output, "the model file to write (.safetensors)");
  compile->callback([&runner, args] {
    runner = [args](Context& ctx) {
      const rasp::Program p = rasp::load_program(args->program);
      const rasp::CompiledProgram c = rasp::compile_program(p, ctx.max_memory);
      ctx.out << rasp::describe_plan(p, c);
      if (!args->output.empty()) {
        io::save_model(c.model, args->output);
        ctx.err << fmt::format("softhat: wrote {}\n", args->output);
      }
      return kExitOk;
    };
  });

  CLI::App* run = rasp->add_subcommand("run", "run a program's reference interpreter on the words of stdin (word<TAB>output)");
  run->add_option("program", args->program, "the program (.srasp)")->required();
  run->add_flag("--header", args->stream.header, "start with a header line (word<TAB>output)");
  run->add_flag("--compare-labels", args->stream.compare_labels,
                "lines word<TAB>expected: report the agreement on stderr, exit 1 on a difference");
  run->add_option("--threads", args->stream.threads,
                  "words run in parallel (default: the cores available); the output is the same for any count")
      ->check(CLI::Range(1, 1024));
  run->callback([&runner, args] {
    runner = [args](Context& ctx) { return stream_program(ctx, rasp::load_program(args->program), args->stream, false); };
  });
}

}  // namespace softhat::cli
