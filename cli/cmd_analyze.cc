// softhat analyze: the formula's fragment and the compiled plan (layers,
// heads, width, beta(n)), stage by stage.
#include <fmt/format.h>

#include <memory>
#include <ostream>

#include "cascade/derive.h"
#include "cli/command.h"
#include "compile/acceptor.h"
#include "lang/describe.h"
#include "automata/dfa.h"
#include "automata/monoid.h"
#include "corpus/generate.h"
#include "logic/print.h"
#include "util/symbols.h"

namespace softhat::cli {

namespace {
struct Args {
  cli::Selection selection;
  CompileArgs compile;
};
}  // namespace

void setup_analyze(CLI::App& app, Runner& runner) {
  CLI::App* sub = app.add_subcommand("analyze", "print the formula's fragment and the compiled layer plan");
  auto args = std::make_shared<Args>();
  add_selection(sub, args->selection, Languages::kOne);
  add_compile_options(sub, args->compile, false);
  sub->callback([&runner, args] {
    runner = [args](Context& ctx) {
      const lang::Language language = select_one(ctx, args->selection, false);
      ctx.out << fmt::format("language     {} ({})\n", language.name(), language.spec.language_class);
      ctx.out << fmt::format("fragment     {}\n", language.formula ? logic::fragment_name(logic::fragment(*language.formula))
                                                                     : "- (no formula)");
      ctx.out << lang::describe_automaton(language);
      ctx.out << fmt::format("sampling     {}\n", corpus::sampling_method(language));
      if (compile::defined_by_automaton(language)) {
        // Every stage: minimal DFA and monoid (above), star-free or a
        // witness, the cascade, the formula DAG and its proof, the model.
        cascade::Derived d;
        try {
          d = compile::derive_language_formula(language);
        } catch (const cascade::NotStarFree& e) {
          ctx.out << fmt::format("star-free    no: {}\n", e.what());
          ctx.out << fmt::format("witness      x = \"{}\", u = \"{}\", y = \"{}\", k = {}, period {}\n",
                                 sym::encode(e.witness.x), sym::encode(e.witness.u), sym::encode(e.witness.y),
                                 e.witness.k, e.witness.period);
          ctx.out << "transformer  - (not star-free: no transformer of softhat's kind recognizes it)\n";
          return 0;
        }
        ctx.out << fmt::format("star-free    yes (every stabiliser of the holonomy skeleton is trivial)\n");
        ctx.out << fmt::format("route        {}\n", d.route == "ordered"
                                                          ? "ordered: the DFA is partially ordered, one reset per state"
                                                          : "holonomy: Krohn-Rhodes cascade of identity-reset levels");
        ctx.out << fmt::format("cascade      {}\n", cascade::describe_cascade(d));
        ctx.out << fmt::format("proof        the formula's automaton equals the minimal DFA ({} formula states "
                               "searched in product)\n",
                               d.proof_states);
        compile::CompileOptions options = args->compile.options();
        options.names = &d.names;
        ctx.out << compile::compile_formula(d.formula, language.alphabet(), options).plan.describe();
        return 0;
      }
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
