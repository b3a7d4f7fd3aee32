#include "cli/json_option.h"

#include <ostream>

#include "io/file_util.h"

namespace softhat::cli {

void JsonOption::add_to(CLI::App* app) {
  command_ = app->get_name();
  app->add_option("--json", file_,
                  "the numbers as JSON (docs/json.md): to FILE (the table still goes to stdout), or instead of the "
                  "table to stdout without FILE or with - (a word right after --json is taken as FILE: write --json=FILE, or put --json after the positionals)")
      ->expected(0, 1);
}

void JsonOption::table(Context& ctx, std::string_view text) const {
  if (!on_stdout()) ctx.out << text;
}

void JsonOption::write(Context& ctx, const nlohmann::ordered_json& value, std::string_view as) const {
  if (!file_) return;
  nlohmann::ordered_json document;
  document["command"] = as.empty() ? command_ : std::string(as);
  for (auto it = value.begin(); it != value.end(); ++it) {
    if (it.key() != "command") document[it.key()] = it.value();
  }
  const std::string text = document.dump(2) + "\n";
  if (on_stdout()) ctx.out << text;
  else io::write_file_atomically(*file_, text);
}

}  // namespace softhat::cli
