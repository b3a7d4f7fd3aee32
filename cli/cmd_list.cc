// softhat list: the catalogue, one language a line.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <memory>
#include <ostream>

#include "cli/command.h"
#include "cli/json_option.h"
#include "lang/describe.h"

namespace softhat::cli {

void setup_list(CLI::App& app, Runner& runner) {
  CLI::App* sub = app.add_subcommand("list", "list the catalogue's languages");
  auto json = std::make_shared<JsonOption>();
  json->add_to(sub);
  sub->callback([&runner, json] {
    runner = [json](Context& ctx) {
      const lang::Catalog catalog = ctx.load_catalog();
      json->table(ctx, lang::format_catalog_table(catalog));
      json->write(ctx, lang::catalog_json(catalog));
      return 0;
    };
  });
}

}  // namespace softhat::cli
