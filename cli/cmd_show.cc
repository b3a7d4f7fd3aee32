// softhat show LANG: everything the catalogue knows about one language.
#include <memory>
#include <ostream>

#include <fmt/format.h>

#include "cascade/derive.h"
#include "cli/command.h"
#include "compile/acceptor.h"
#include "lang/describe.h"

namespace softhat::cli {

void setup_show(CLI::App& app, Runner& runner) {
  CLI::App* sub = app.add_subcommand("show", "show one language: formula, structure, fragment, oracles");
  auto selection = std::make_shared<cli::Selection>();
  add_selection(sub, *selection);
  sub->callback([&runner, selection] {
    runner = [selection](Context& ctx) {
      for (const lang::Language& language : ctx.select(*selection)) {
        ctx.out << lang::describe_language(language);
        if (!compile::defined_by_automaton(language)) continue;
        // The formula derived from the automaton, shared subformulas named.
        try {
          const cascade::Derived d = compile::derive_language_formula(language);
          ctx.out << fmt::format("derived      {}\n", cascade::describe_cascade(d));
          ctx.out << "derived formula (" << d.route << " route; every named subformula is one residual coordinate):\n";
          ctx.out << cascade::print_definitions(d);
        } catch (const cascade::NotStarFree& e) {
          ctx.out << fmt::format("derived      - ({})\n", e.what());
        }
      }
      return 0;
    };
  });
}

}  // namespace softhat::cli
