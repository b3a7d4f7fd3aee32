// softhat list: the catalogue, one language a line.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <ostream>

#include "cli/command.h"
#include "lang/describe.h"

namespace softhat::cli {

void setup_list(CLI::App& app, Runner& runner) {
  CLI::App* sub = app.add_subcommand("list", "list the catalogue's languages");
  sub->callback([&runner] {
    runner = [](Context& ctx) {
      ctx.out << lang::format_catalog_table(ctx.load_catalog());
      return 0;
    };
  });
}

}  // namespace softhat::cli
