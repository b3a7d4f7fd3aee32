// --json [FILE], the same for every command that prints a table
// (docs/json.md): without FILE, or with -, the JSON takes the table's place
// on stdout; with FILE the table still goes to stdout and the JSON is
// written whole to FILE. Every document starts with "command" (the
// subcommand's name), which selects its schema in docs/json-schema.json.
#pragma once

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <string_view>

#include "cli/command.h"

namespace softhat::cli {

class JsonOption {
 public:
  // Adds --json to `app` (whose name becomes the document's "command").
  void add_to(CLI::App* app);
  bool given() const { return file_.has_value(); }
  bool on_stdout() const { return file_ && (file_->empty() || *file_ == "-"); }
  // Prints `text` unless the JSON takes stdout.
  void table(Context& ctx, std::string_view text) const;
  // Writes the document if --json was given: "command" first (this
  // subcommand's name, or `as`), then `value`'s keys.
  void write(Context& ctx, const nlohmann::ordered_json& value, std::string_view as = {}) const;

 private:
  std::string command_;
  std::optional<std::string> file_;
};

}  // namespace softhat::cli
