// softhat analyze: the formula's fragment and the compiled plan (layers,
// heads, width, beta(n)), stage by stage.
#include <fmt/format.h>

#include <memory>
#include <ostream>

#include "cli/command.h"
#include "compile/acceptor.h"
#include "lang/describe.h"
#include "automata/dfa.h"
#include "automata/monoid.h"
#include "corpus/generate.h"
#include "logic/print.h"

namespace softhat::cli {

namespace {
struct Args {
  lang::Selection selection;
  CompileArgs compile;
};
}  // namespace

void setup_analyze(CLI::App& app, Runner& runner) {
  CLI::App* sub = app.add_subcommand("analyze", "print the formula's fragment and the compiled layer plan");
  auto args = std::make_shared<Args>();
  add_selection(sub, args->selection, false);
  add_compile_options(sub, args->compile, false);
  sub->callback([&runner, args] {
    runner = [args](Context& ctx) {
      const lang::Language language = select_one(ctx, args->selection, false);
      ctx.out << fmt::format("language     {} ({})\n", language.name(), language.spec.language_class);
      ctx.out << fmt::format("fragment     {}\n", language.formula ? logic::fragment_name(logic::fragment(*language.formula))
                                                                     : "- (no formula)");
      ctx.out << lang::describe_automaton(language);
      ctx.out << fmt::format("sampling     {}\n", corpus::sampling_method(language));
      if (!language.formula) {
        if (compile::has_acceptor(language)) {
          ctx.out << model::describe_config(compile::build_acceptor(language, args->compile.options()).model.config);
        }
        return 0;
      }
      ctx.out << compile::compile_formula(*language.formula, language.alphabet(), args->compile.options())
                     .plan.describe();
      return 0;
    };
  });
}

}  // namespace softhat::cli
