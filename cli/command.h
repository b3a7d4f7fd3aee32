// One subcommand per file (cmd_*.cc): each registers its options on the
// CLI11 app and returns the function that runs it. Runners only call lib/.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <iosfwd>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "cli/select.h"
#include "compile/compiler.h"
#include "corpus/generate.h"
#include "io/word_stream.h"
#include "corpus/validate.h"
#include "lang/catalog.h"
#include "model/forward.h"
#include "rasp/program.h"
#include "util/progress.h"

namespace softhat::cli {

struct Context {
  std::istream& in;
  std::ostream& out;
  std::ostream& err;
  std::vector<std::string> catalogs;  // --catalog DIR, repeatable
  std::vector<std::string> args;      // the command line (for manifests)
  // Resource limits (global options, docs/errors.md).
  std::size_t max_length = 100'000'000;         // --max-length: longest word read from a stream
  std::size_t max_memory = std::size_t{8} << 30;  // --max-memory: engine memory for one word
  std::size_t max_states = automata::kDefaultMaxStates;  // --max-states: largest DFA built
  bool quiet = false;  // --quiet: no progress line
  lang::Catalog load_catalog() const;
  // A progress line (util/progress.h) for a long run, drawn only when stderr
  // is the process's terminal and --quiet is off; otherwise a no-op.
  std::unique_ptr<util::Progress> progress(std::string label, std::string unit = "words") const;
  // The selected languages of the loaded catalogue, built under max_states.
  std::vector<lang::Language> select(const cli::Selection& selection) const;
};

using Runner = std::function<int(Context&)>;

// Adds `LANG... | --all | --formula F --alphabet A [--regex R] | --regex R
// --alphabet A | --att FILE|DIR... [--alphabet A] | --task khop --hops K` to a
// subcommand.
// kOne: the command takes one language (its help says so; no --all).
enum class Languages { kOne, kSeveral };
void add_selection(CLI::App* app, cli::Selection& selection, Languages count = Languages::kSeveral);
// Only the flags that define a language here: --formula, --regex, --att,
// --alphabet (for commands with their own positionals, e.g. explain).
void add_language_flags(CLI::App* app, cli::Selection& selection);

void setup_list(CLI::App& app, Runner& runner);
void setup_show(CLI::App& app, Runner& runner);
void setup_check(CLI::App& app, Runner& runner);
void setup_run(CLI::App& app, Runner& runner);
void setup_compile(CLI::App& app, Runner& runner);
void setup_classify(CLI::App& app, Runner& runner);
void setup_verify(CLI::App& app, Runner& runner);
void setup_analyze(CLI::App& app, Runner& runner);
void setup_generate(CLI::App& app, Runner& runner);
void setup_simulate(CLI::App& app, Runner& runner);
void setup_transduce(CLI::App& app, Runner& runner);
void setup_sweep(CLI::App& app, Runner& runner);
void setup_explain(CLI::App& app, Runner& runner);
void setup_report(CLI::App& app, Runner& runner);
void setup_merge(CLI::App& app, Runner& runner);
void setup_validate(CLI::App& app, Runner& runner);
void setup_score(CLI::App& app, Runner& runner);
void setup_rasp(CLI::App& app, Runner& runner);

// validate: the language a corpus manifest records ("source"), as a selection;
// then the corpus checked against it (or against `given`, if any).
Selection recorded_selection(const nlohmann::json& source);
std::optional<corpus::Problem> validate_in(Context& ctx, const nlohmann::json& manifest, const Selection& given,
                                           const std::function<std::optional<std::string>(const std::string&)>& read,
                                           std::string* language_name = nullptr);
// Strict balance (generate, merge): a shortage refuses the corpus before anything is written.
void refuse_shortages(const corpus::Corpus& corpus, bool allow);

// Enum options: the names a flag takes and the value each stands for, in the
// order help lists them. add_enum_option turns the name into the enum at the
// CLI boundary (a CLI11 transformer), so commands and lib/ never see the
// string; a name not in the list is refused as "NAME not in {a,b}".
template <typename E>
using EnumNames = std::vector<std::pair<std::string, E>>;
inline const EnumNames<model::AttentionMode> kModeNames{{"softmax", model::AttentionMode::kSoftmax},
                                                       {"hard", model::AttentionMode::kHard}};
inline const EnumNames<model::Precision> kPrecisionNames{{"double", model::Precision::kDouble},
                                                        {"float", model::Precision::kFloat}};
inline const EnumNames<io::WordFormat> kFormatNames{{"tsv", io::WordFormat::kTsv}, {"jsonl", io::WordFormat::kJsonl}};
inline const EnumNames<compile::PeMode> kPeNames{{"bounded", compile::PeMode::kBounded},
                                                {"unbounded", compile::PeMode::kUnbounded}};
inline const EnumNames<corpus::Negatives> kNegativesNames{{"uniform", corpus::Negatives::kUniform},
                                                         {"border", corpus::Negatives::kBorder}};

template <typename E>
CLI::Option* add_enum_option(CLI::App* app, const std::string& flag, E& value, const EnumNames<E>& names,
                             const std::string& help) {
  std::string set = "{";
  for (const auto& [name, e] : names) set += (set.size() > 1 ? "," : "") + name;
  set += "}";
  CLI::Validator to_value(
      [names, set](std::string& input) -> std::string {
        for (const auto& [name, e] : names) {
          if (input == name) {
            input = std::to_string(static_cast<long long>(e));  // CLI11 reads an enum as its underlying integer
            return {};
          }
        }
        return input + " not in " + set;
      },
      set);
  return app->add_option(flag, value, help)->transform(to_value)->type_name("TEXT");
}

// --pe and --beta, shared by the commands that compile.
struct CompileArgs {
  compile::PeMode pe = compile::PeMode::kBounded;
  std::string beta;  // empty: the construction's schedule
  compile::CompileOptions options(const Context& ctx) const;  // with --max-memory, which bounds the weights
  std::optional<model::BetaSchedule> beta_override() const;
};
void add_compile_options(CLI::App* app, CompileArgs& args, bool with_beta);
// A --beta expression (empty: none); a malformed one is an InputError naming
// the flag, the position and the forms.
std::optional<model::BetaSchedule> parse_beta_flag(const std::string& expr);

// The one language of a single-language command (LANG, --formula, --regex or
// one --att file). need_acceptor: refuse a language compile::has_acceptor()
// cannot build a transformer for.
lang::Language select_one(const Context& ctx, const cli::Selection& selection, bool need_acceptor = true);

// The model a command works on: a model file (--model), or the transformer of
// one selected language (compiled or constructed). Throws InputError for both.
struct Subject {
  model::Transformer model;
  std::optional<lang::Language> language;
  std::string name;  // the language's name or the file
};
Subject select_subject(const Context& ctx, const cli::Selection& selection, const CompileArgs& compile,
                       const std::string& model_file);

// What every command that streams words takes: --format, --header,
// --compare-labels (and run's --emit-state).
struct StreamArgs {
  io::WordFormat format = io::WordFormat::kTsv;
  bool header = false;
  bool compare_labels = false;
  bool emit_state = false;
  int threads = 0;  // --threads; 0: the cores available
};
// `columns`: what --format's help says the TSV columns are, e.g. "word, TRUE/FALSE".
void add_stream_options(CLI::App* app, StreamArgs& args, const std::string& columns);

// classify / transduce: the language's (or task's) transformer on the words
// of stdin, one record per line (io/word_stream.h).
int stream_language(Context& ctx, const lang::Language& language, const CompileArgs& compile, const StreamArgs& stream,
                    model::AttentionMode mode, model::Precision precision);
// An S-RASP program's reference interpreter on the words of stdin (rasp run;
// classify --program with acceptor: its '1'/'0' output as TRUE/FALSE).
int stream_program(Context& ctx, const rasp::Program& program, const StreamArgs& stream, bool acceptor);
// The program's compiled transformer on the words of stdin (transduce --program,
// classify --program --mode): softmax through the engine at the scheduled
// beta (or `beta`), hard mode through the exact AHAT.
int stream_compiled(Context& ctx, const rasp::Program& program, const StreamArgs& stream, bool acceptor,
                    model::AttentionMode mode, const std::optional<model::BetaSchedule>& beta);
// The model on the words of stdin (classify, transduce and run).
int stream_model(Context& ctx, const model::Engine& engine, const StreamArgs& stream, model::RunOptions options,
                 const std::string& what);

// generate's shortage messages on stderr (also printed by merge).
void report_shortages(Context& ctx, const corpus::Corpus& corpus);

// The default --threads: the cores available (at least 1).
int default_threads();
// A stream's --threads, or the default.
int stream_threads(const StreamArgs& stream);

// Shared by the subcommands that stream words.
// With compare_labels: a final agreement line on stderr for lines read back
// as word<TAB>label, and exit 1 if any label differs from the verdict.
int finish_stream(Context& ctx, const io::StreamSummary& summary, bool compare_labels = false);
io::StreamOptions stream_options(const Context& ctx, std::string_view alphabet, const StreamArgs& stream,
                                 bool transducer);

// The flag that raises a limit ("; raise --max-states"), or "" for a fixed
// bound: library errors carry which limit was hit, the CLI alone names flags.
std::string limit_advice(Limit limit);

}  // namespace softhat::cli
