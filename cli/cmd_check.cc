// softhat check: the evaluator against the oracles (regex, checker) on every
// word up to --max-len and on seeded random words of each --lengths.
#include <memory>
#include <ostream>

#include "cli/command.h"
#include "cli/json_option.h"
#include "words/words.h"
#include "util/error.h"
#include "verify/check.h"

namespace softhat::cli {

namespace {
struct CheckArgs {
  cli::Selection selection;
  verify::CheckOptions options;
  std::size_t max_len = 0;
  JsonOption json;
};
}  // namespace

void setup_check(CLI::App& app, Runner& runner) {
  CLI::App* sub = app.add_subcommand(
      "check", "compare the formula evaluator with the language's oracles (regex, checker, automaton, the "
               "formula's DFA); exit 1 on any disagreement");
  auto args = std::make_shared<CheckArgs>();
  add_selection(sub, args->selection);
  auto* max_len = sub->add_option("--exhaustive,--max-len", args->max_len,
                                  "check every word up to this length (default: 10 for binary alphabets, "
                                  "fewer for larger ones)");
  max_len->check(CLI::Range(0, 24));
  sub->add_option_function<std::string>(
      "--lengths", [args](const std::string& text) { args->options.lengths = words::parse_length_list(text); },
      "lengths of the random words, e.g. 100,1000 or 20-50 (default 100,1000)");
  sub->add_option("--per-length,--samples", args->options.samples, "random words per length (default 100)");
  sub->add_option("--seed", args->options.seed, "random seed (fixed default)");
  args->json.add_to(sub);
  sub->callback([&runner, args, max_len] {
    if (max_len->count()) args->options.max_len = args->max_len;
    runner = [args](Context& ctx) {
      std::vector<verify::CheckReport> reports;
      for (const lang::Language& language : ctx.select(args->selection)) {
        args->options.max_memory = ctx.max_memory;
        reports.push_back(verify::check_language(language, args->options));
      }
      args->json.table(ctx, verify::format_check_reports(reports));
      args->json.write(ctx, verify::check_reports_json(reports, args->options));
      for (const auto& r : reports) {
        if (!r.ok()) return kExitDisagreement;
      }
      return kExitOk;
    };
  });
}

}  // namespace softhat::cli
