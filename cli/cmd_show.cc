// softhat show LANG: everything the catalogue knows about one language.
#include <memory>
#include <ostream>

#include <fmt/format.h>

#include "cascade/derive.h"
#include "cli/command.h"
#include "cli/json_option.h"
#include "compile/acceptor.h"
#include "lang/describe.h"

namespace softhat::cli {

void setup_show(CLI::App& app, Runner& runner) {
  CLI::App* sub = app.add_subcommand("show", "show one language: formula, structure, fragment, oracles");
  auto selection = std::make_shared<cli::Selection>();
  auto json = std::make_shared<JsonOption>();
  add_selection(sub, *selection);
  json->add_to(sub);
  sub->callback([&runner, selection, json] {
    runner = [selection, json](Context& ctx) {
      std::string out;
      nlohmann::ordered_json document;
      document["languages"] = nlohmann::ordered_json::array();
      for (const lang::Language& language : ctx.select(*selection)) {
        out += lang::describe_language(language);
        nlohmann::ordered_json entry = lang::language_json(language);
        if (compile::defined_by_automaton(language)) {
          // The formula derived from the automaton, shared subformulas named.
          try {
            const cascade::Derived d = compile::derive_language_formula(language);
            out += fmt::format("derived      {}\n", cascade::describe_cascade(d));
            out += "derived formula (" + d.route + " route; every named subformula is one residual coordinate):\n";
            out += cascade::print_definitions(d);
            entry["derived"] = {{"cascade", cascade::describe_cascade(d)},
                                {"route", d.route},
                                {"definitions", cascade::print_definitions(d)}};
          } catch (const cascade::NotStarFree& e) {
            out += fmt::format("derived      - ({})\n", e.what());
            entry["derived"] = {{"not_star_free", e.what()}};
          }
        }
        document["languages"].push_back(std::move(entry));
      }
      json->table(ctx, out);
      json->write(ctx, document);
      return 0;
    };
  });
}

}  // namespace softhat::cli
