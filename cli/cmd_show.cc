// softhat show LANG: everything the catalogue knows about one language.
#include <memory>
#include <ostream>

#include "cli/command.h"
#include "lang/describe.h"

namespace softhat::cli {

void setup_show(CLI::App& app, Runner& runner) {
  CLI::App* sub = app.add_subcommand("show", "show one language: formula, structure, fragment, oracles");
  auto selection = std::make_shared<lang::Selection>();
  add_selection(sub, *selection, true);
  sub->callback([&runner, selection] {
    runner = [selection](Context& ctx) {
      for (const lang::Language& language : lang::select_languages(ctx.load_catalog(), *selection)) {
        ctx.out << lang::describe_language(language);
      }
      return 0;
    };
  });
}

}  // namespace softhat::cli
