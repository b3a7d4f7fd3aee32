#include "cli/app.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <thread>

#include <iostream>

#include <unistd.h>

#include "cli/command.h"
#include "automata/dfa.h"
#include "compile/acceptor.h"
#include "io/model_file.h"
#include "logic/parse.h"
#include "util/error.h"
#include "util/interrupt.h"
#include "util/version.h"

namespace softhat::cli {

lang::Catalog Context::load_catalog() const {
  lang::Catalog catalog = lang::Catalog::builtin(max_states);
  for (const std::string& dir : catalogs) catalog.add_directory(dir);
  return catalog;
}

std::vector<lang::Language> Context::select(const cli::Selection& selection) const {
  return cli::select_languages(load_catalog(), selection, max_states);
}

void add_language_flags(CLI::App* app, cli::Selection& s) {
  app->add_option("--formula", s.formula, "a formula typed here (formula-language.md)");
  app->add_option("--regex", s.regex, "an RE2 regex: alone (with --alphabet) the language itself, with --formula an "
                                      "oracle for it");
  app->add_option("--att", s.att, "acceptors in AT&T/OpenFst text: .att files, or folders of them (one language "
                                  "per file, named after it)");
  app->add_option("--alphabet", s.alphabet, "the alphabet of --formula, --regex or --att (--att: default the arcs' "
                                            "symbols), e.g. ab");
}

void add_selection(CLI::App* app, cli::Selection& s, Languages count) {
  if (count == Languages::kOne) {
    app->add_option("language", s.names, "one catalogue language (see `softhat list`): this command takes one")
        ->expected(0, 1);
  } else {
    app->add_option("languages", s.names, "catalogue languages (see `softhat list`)");
    app->add_flag("--all", s.all, "every catalogue language");
  }
  add_language_flags(app, s);
  app->add_option("--task", s.task, "a transduction task typed here: khop (with --hops)")->check(CLI::IsMember({"khop"}));
  app->add_option("--hops,--k", s.hops, "k of --task khop")->check(CLI::Range(1, 64));
  app->add_option("--alphabet-size", s.alphabet_size, "--task: the alphabet a, b, ... of this size (default 4)")
      ->check(CLI::Range(2, 26));
}

compile::CompileOptions CompileArgs::options(const Context& ctx) const {
  compile::CompileOptions o;
  o.pe = pe;
  o.max_memory = ctx.max_memory;
  return o;
}

std::optional<model::BetaSchedule> parse_beta_flag(const std::string& expr) {
  if (expr.empty()) return std::nullopt;
  try {
    return compile::parse_beta(expr);
  } catch (const InputError& e) {
    throw InputError(fmt::format("--beta {}", e.what()));
  }
}

std::optional<model::BetaSchedule> CompileArgs::beta_override() const { return parse_beta_flag(beta); }

void add_compile_options(CLI::App* app, CompileArgs& args, bool with_beta) {
  add_enum_option(app, "--pe", args.pe, kPeNames,
                  "position embeddings: bounded (j/(n+1), beta grows with n) or unbounded (j, n; fixed beta)");
  if (with_beta) {
    app->add_option("--beta", args.beta, "override the inverse temperature schedule, e.g. 1 or 3*(n+1)");
  }
}

Subject select_subject(const Context& ctx, const cli::Selection& selection, const CompileArgs& compile,
                       const std::string& model_file) {
  Subject s;
  if (!model_file.empty()) {
    if (selection.any()) throw InputError("give either --model FILE or a language, not both");
    s.model = io::load_model(model_file);
    s.name = model_file;
    return s;
  }
  s.language = select_one(ctx, selection, true);
  s.model = compile::build_acceptor(*s.language, compile.options(ctx)).model;
  s.name = s.language->name();
  return s;
}

int default_threads() { return std::max(1u, std::thread::hardware_concurrency()); }

lang::Language select_one(const Context& ctx, const cli::Selection& selection, bool need_acceptor) {
  if (selection.all || selection.names.size() > 1) throw InputError("this command takes one language");
  std::vector<lang::Language> langs = ctx.select(selection);
  if (langs.size() != 1) {
    throw InputError(fmt::format("this command takes one language; --att names {} files", langs.size()));
  }
  if (need_acceptor && !compile::has_acceptor(langs[0])) {
    throw InputError(fmt::format("language '{}' has no formula, construction or regular DFA to build a transformer "
                                 "from",
                                 langs[0].name()));
  }
  return std::move(langs[0]);
}

std::unique_ptr<util::Progress> Context::progress(std::string label, std::string unit) const {
  if (quiet || &err != &std::cerr || !isatty(STDERR_FILENO)) return std::make_unique<util::Progress>();
  // SOFTHAT_PROGRESS_AFTER: seconds before the line appears (default 1; the
  // tests set 0 to see it without depending on how long a run takes).
  double after = 1.0;
  if (const char* env = std::getenv("SOFTHAT_PROGRESS_AFTER")) {
    char* end = nullptr;
    const double v = std::strtod(env, &end);
    if (end != env && *end == '\0' && v >= 0) after = v;
  }
  return std::make_unique<util::Progress>(std::move(label), std::move(unit), after);
}

int run(const std::vector<std::string>& args, std::istream& in, std::ostream& out, std::ostream& err) {
  CLI::App app{"softhat: formal languages compiled into softmax transformers, checked word by word", "softhat"};
  app.set_version_flag("--version", std::string("softhat ") + kVersion);
  app.require_subcommand(1);
  app.footer(
      "Exit status: 0 success, 1 a verification found a disagreement, 2 usage or input error, "
      "3 internal error.");
  Context ctx{in, out, err, {}, args};
  app.add_option("--catalog", ctx.catalogs, "add the *.toml languages of this folder")->check(CLI::ExistingDirectory);
  app.add_option("--max-length", ctx.max_length, "longest word read from a stream, in symbols (default 100000000)")
      ->check(CLI::PositiveNumber);
  app.add_option("--max-memory", ctx.max_memory,
                 "memory one word may take in the engine, one run's tables and corpora, and a compiled model's weights, "
                 "e.g. 8GiB, 512MB "
                 "(default 8GiB)")
      ->check(CLI::Validator(
          [](std::string& text) -> std::string {
            // Before the size transform: a size is positive ("-5" and "0" are not).
            const std::size_t first = text.find_first_not_of(" \t");
            if (first != std::string::npos && text[first] == '-') return "a memory size is positive, not " + text;
            return "";
          },
          "SIZE", "positive"))
      ->transform(CLI::AsSizeValue(false))
      ->check(CLI::Validator(
          [](std::string& text) -> std::string {
            return text.find_first_not_of('0') == std::string::npos ? "a memory size is positive, not 0" : "";
          },
          "", "nonzero"));
  app.add_option("--max-states", ctx.max_states, "largest DFA built, in states (default 1000000)")
      ->check(CLI::PositiveNumber);
  app.add_flag("--quiet,-q", ctx.quiet, "no progress line on stderr (it is drawn only on a terminal, for runs over a "
                                        "second)");
  // Global options may also follow the subcommand.
  app.fallthrough();
  Runner runner;
  setup_list(app, runner);
  setup_show(app, runner);
  setup_check(app, runner);
  setup_run(app, runner);
  setup_compile(app, runner);
  setup_classify(app, runner);
  setup_verify(app, runner);
  setup_analyze(app, runner);
  setup_generate(app, runner);
  setup_simulate(app, runner);
  setup_transduce(app, runner);
  setup_sweep(app, runner);
  setup_explain(app, runner);
  setup_report(app, runner);
  setup_merge(app, runner);
  setup_validate(app, runner);
  setup_score(app, runner);
  setup_rasp(app, runner);

  std::vector<std::string> reversed(args.rbegin(), args.rend());
  try {
    app.parse(reversed);
  } catch (const CLI::CallForHelp&) {
    out << app.help();
    return kExitOk;
  } catch (const CLI::CallForAllHelp&) {
    out << app.help("", CLI::AppFormatMode::All);
    return kExitOk;
  } catch (const CLI::CallForVersion& e) {
    out << e.what() << "\n";
    return kExitOk;
  } catch (const CLI::ParseError& e) {
    err << "softhat: " << e.what() << "\n";
    return kExitInput;
  }
  try {
    const int status = runner(ctx);
    out.flush();
    if (!out) {
      // stdout is full (ENOSPC) or closed: say so instead of exiting 0 with output lost.
      const int error = errno;
      err << "softhat: cannot write the output"
          << (error ? fmt::format(": {}", std::strerror(error)) : std::string()) << "\n";
      return kExitInput;
    }
    return status;
  } catch (const Interrupted&) {
    out.flush();
    err << "softhat: interrupted; no output file was written\n";
    return interrupted_exit_status();
  } catch (const logic::ParseError& e) {
    err << "softhat: " << e.what() << "\n";
    return kExitInput;
  } catch (const LimitError& e) {
    err << "softhat: " << e.what() << limit_advice(e.limit()) << "\n";
    return kExitInput;
  } catch (const InputError& e) {
    err << "softhat: " << e.what() << "\n";
    return kExitInput;
  } catch (const std::invalid_argument& e) {
    err << "softhat: " << e.what() << "\n";
    return kExitInput;
  } catch (const std::bad_alloc&) {
    // An allocation no estimate foresaw (every buffer sized from input is
    // checked against --max-memory first): still the input's size, exit 2.
    err << "softhat: out of memory; raise the memory available or lower --max-memory and the sizes asked for\n";
    return kExitInput;
  } catch (const std::ios_base::failure& e) {
    // A stream that cannot be read (stdin a directory, a read error).
    err << "softhat: cannot read the input: " << e.what() << "\n";
    return kExitInput;
  } catch (const std::exception& e) {
    err << "softhat: internal error: " << e.what() << "\n";
    return kExitInternal;
  }
}

}  // namespace softhat::cli
