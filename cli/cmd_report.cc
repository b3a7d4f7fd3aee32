// softhat report: a self-contained HTML page per language and an index
// (lib/report/report.h).
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <ostream>

#include "cli/command.h"
#include "cascade/holonomy.h"
#include "compile/acceptor.h"
#include "report/report.h"
#include "util/error.h"
#include "words/words.h"

namespace softhat::cli {

namespace {
struct Args {
  cli::Selection selection;
  CompileArgs compile;
  std::string out;
  std::string verify_lengths = "100,1000";
  std::size_t samples = 50;
  std::string sweep_lengths = "16,64,256,1024";
  std::size_t sweep_words = 20;
  std::vector<std::string> programs;
  std::string program_lengths;
};
}  // namespace

void setup_report(CLI::App& app, Runner& runner) {
  CLI::App* sub = app.add_subcommand("report", "write one self-contained HTML page per language, and an index");
  auto args = std::make_shared<Args>();
  add_selection(sub, args->selection);
  add_compile_options(sub, args->compile, false);
  sub->add_option("--out", args->out, "the folder to write (created if needed)")->required();
  sub->add_option("--lengths", args->verify_lengths, "verification lengths besides the exhaustive ones (default 100,1000)");
  sub->add_option("--per-length,--samples", args->samples, "verification words per length (default 50)");
  sub->add_option("--sweep-lengths", args->sweep_lengths, "temperature sweep lengths (default 16,64,256,1024)");
  sub->add_option("--sweep-words", args->sweep_words, "sweep words per length (default 20)");
  sub->add_option("--program", args->programs,
                  "S-RASP programs (.srasp) to give a page each: layer plan, gap table, verify --program's checks, "
                  "beta(N) against the measured beta*");
  sub->add_option("--program-lengths", args->program_lengths,
                  "lengths n of the programs' beta* table (default 2,4,8,16,32; padded programs 2-6)");
  sub->callback([&runner, args] {
    runner = [args](Context& ctx) {
      report::ReportOptions options;
      options.compile = args->compile.options(ctx);
      options.verify.compile = options.compile;
      options.verify.lengths = words::parse_length_list(args->verify_lengths);
      options.verify.samples = args->samples;
      options.sweep_lengths = words::parse_length_list(args->sweep_lengths);
      options.sweep_plan.words = args->sweep_words;
      std::vector<report::LanguagePage> pages;
      std::vector<std::string> stems;  // refused before any work: the pages' names clash
      for (const std::string& path : args->programs) {
        const std::string stem = std::filesystem::path(path).stem().string();
        if (stem == "index") throw InputError(fmt::format("{}: its page would be index.html, the index's own name", path));
        if (std::find(stems.begin(), stems.end(), stem) != stems.end()) {
          throw InputError(fmt::format("{}: another program's page is already named {}.html", path, stem));
        }
        stems.push_back(stem);
      }
      if (args->programs.empty() || args->selection.any()) {
        for (const lang::Language& language : ctx.select(args->selection)) {
          if (!compile::has_acceptor(language)) {
            ctx.err << fmt::format("softhat: skipped {}: no formula or construction\n", language.name());
            continue;
          }
          try {
            pages.push_back(report::language_page(language, options));
          } catch (const cascade::NotStarFree& e) {
            // A DFA-defined language that is not star-free: no transformer to report on.
            if (!args->selection.all && args->selection.att.empty()) throw;
            ctx.err << fmt::format("softhat: skipped {}: {}\n", language.name(), e.what());
            continue;
          }
          ctx.err << fmt::format("softhat: {} {}\n", language.name(), pages.back().ok ? "agrees" : "DISAGREES");
        }
      }
      report::ProgramReportOptions program_options;
      program_options.check.max_memory = ctx.max_memory;
      program_options.check.threads = default_threads();  // the page does not depend on it
      if (!args->program_lengths.empty()) program_options.lengths = words::parse_length_list(args->program_lengths);
      for (const std::string& path : args->programs) {
        pages.push_back(report::program_page(path, program_options));
        ctx.err << fmt::format("softhat: {} {}\n", path, pages.back().ok ? "agrees" : "DISAGREES");
      }
      for (std::size_t a = 0; a < pages.size(); ++a) {  // one file per page: two pages of one name would overwrite
        for (std::size_t b = 0; b < a; ++b) {
          if (pages[a].name == pages[b].name) throw InputError(fmt::format("two pages would be named {}.html", pages[a].name));
        }
        if (pages[a].name == "index") throw InputError("a page would be named index.html, the index's own name");
      }
      std::string command = "softhat";
      for (const std::string& a : ctx.args) command += " " + a;
      report::write_report(pages, args->out, command);
      ctx.out << fmt::format("wrote {} pages and index.html to {}\n", pages.size(), args->out);
      for (const report::LanguagePage& p : pages) {
        if (!p.ok) return kExitDisagreement;
      }
      return kExitOk;
    };
  });
}

}  // namespace softhat::cli
