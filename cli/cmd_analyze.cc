// softhat analyze: the formula's fragment and the compiled plan (layers,
// heads, width, beta(n)), stage by stage.
#include <fmt/format.h>

#include <memory>
#include <ostream>

#include "cascade/derive.h"
#include "cli/command.h"
#include "cli/json_option.h"
#include "io/model_file.h"
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
  JsonOption json;
};
}  // namespace

void setup_analyze(CLI::App& app, Runner& runner) {
  CLI::App* sub = app.add_subcommand("analyze", "print the formula's fragment and the compiled layer plan");
  auto args = std::make_shared<Args>();
  add_selection(sub, args->selection, Languages::kOne);
  add_compile_options(sub, args->compile, false);
  args->json.add_to(sub);
  sub->callback([&runner, args] {
    runner = [args](Context& ctx) {
      const lang::Language language = select_one(ctx, args->selection, false);
      std::string out;
      nlohmann::ordered_json json;
      json["language"] = language.name();
      json["class"] = language.spec.language_class;
      json["fragment"] = language.formula ? nlohmann::ordered_json(logic::fragment_name(logic::fragment(*language.formula)))
                                          : nlohmann::ordered_json();
      out += fmt::format("language     {} ({})\n", language.name(), language.spec.language_class);
      out += fmt::format("fragment     {}\n", language.formula ? logic::fragment_name(logic::fragment(*language.formula))
                                                                 : "- (no formula)");
      const lang::AutomatonFacts facts = lang::automaton_facts(language);
      out += lang::describe_automaton(facts);
      json["dfa"] = lang::automaton_json(facts);
      out += fmt::format("sampling     {}\n", corpus::sampling_method(language));
      json["sampling"] = corpus::sampling_method(language);
      const auto finish = [&] {
        args->json.table(ctx, out);
        args->json.write(ctx, json);
        return kExitOk;
      };
      if (compile::defined_by_automaton(language)) {
        // Every stage: minimal DFA and monoid (above), star-free or a
        // witness, the cascade, the formula DAG and its proof, the model.
        cascade::Derived d;
        try {
          d = compile::derive_language_formula(language);
        } catch (const cascade::NotStarFree& e) {
          out += fmt::format("star-free    no: {}\n", e.what());
          out += fmt::format("witness      x = \"{}\", u = \"{}\", y = \"{}\", k = {}, period {}\n",
                             sym::encode(e.witness.x), sym::encode(e.witness.u), sym::encode(e.witness.y),
                             e.witness.k, e.witness.period);
          out += "transformer  - (not star-free: no transformer of softhat's kind recognizes it)\n";
          json["star_free"] = false;
          json["not_star_free"] = {{"reason", e.what()},
                                   {"x", sym::encode(e.witness.x)},
                                   {"u", sym::encode(e.witness.u)},
                                   {"y", sym::encode(e.witness.y)},
                                   {"k", e.witness.k},
                                   {"period", e.witness.period}};
          json["transformer"] = nullptr;
          return finish();
        }
        out += fmt::format("star-free    yes (every stabiliser of the holonomy skeleton is trivial)\n");
        out += fmt::format("route        {}\n", d.route == "ordered"
                                                    ? "ordered: the DFA is partially ordered, one reset per state"
                                                    : "holonomy: Krohn-Rhodes cascade of identity-reset levels");
        out += fmt::format("cascade      {}\n", cascade::describe_cascade(d));
        out += fmt::format("proof        the formula's automaton equals the minimal DFA ({} formula states "
                           "searched in product)\n",
                           d.proof_states);
        json["star_free"] = true;
        json["route"] = d.route;
        json["cascade"] = cascade::describe_cascade(d);
        json["proof_states"] = d.proof_states;
        const compile::Plan plan =
            compile::compile_formula(d.formula, language.alphabet(), compile::derived_options(args->compile.options(ctx), d)).plan;
        out += plan.describe();
        json["transformer"] = plan.to_json();
        return finish();
      }
      if (!language.formula) {
        json["transformer"] = nullptr;
        if (compile::has_acceptor(language)) {
          const model::ModelConfig config = compile::build_acceptor(language, args->compile.options(ctx)).model.config;
          out += model::describe_config(config);
          json["transformer"] = {{"model", io::config_to_json(config)}};
        }
        return finish();
      }
      const compile::Plan plan = compile::compile_formula(*language.formula, language.alphabet(), args->compile.options(ctx)).plan;
      out += plan.describe();
      json["transformer"] = plan.to_json();
      return finish();
    };
  });
}

}  // namespace softhat::cli
