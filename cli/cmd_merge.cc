// softhat merge: shard reports of `verify --shard K/N --json` combined into
// exactly what one run would have printed and written.
#include <fmt/format.h>

#include <memory>
#include <ostream>

#include "cli/command.h"
#include "io/file_util.h"
#include "util/error.h"
#include "verify/verify.h"

namespace softhat::cli {

namespace {
struct Args {
  std::vector<std::string> files;
  std::string json;
};
}  // namespace

void setup_merge(CLI::App& app, Runner& runner) {
  CLI::App* sub = app.add_subcommand("merge", "combine the shard reports of `verify --shard K/N --json` into one run's report");
  auto args = std::make_shared<Args>();
  sub->add_option("reports", args->files, "the shards' JSON reports (every K of one N, once)")->required();
  sub->add_option("--json", args->json, "also write the merged report as JSON to this file");
  sub->callback([&runner, args] {
    runner = [args](Context& ctx) {
      std::vector<nlohmann::json> shards;
      for (const std::string& f : args->files) {
        try {
          shards.push_back(nlohmann::json::parse(io::read_file(f)));
        } catch (const nlohmann::json::exception& e) {
          throw InputError(fmt::format("{}: not a JSON report: {}", f, e.what()));
        }
      }
      verify::MergedVerify merged;
      try {
        merged = verify::merge_verify_json(shards);
      } catch (const nlohmann::json::exception& e) {
        throw InputError(fmt::format("merge: not a verify report: {}", e.what()));
      }
      ctx.out << verify::format_verify_reports(merged.reports);
      if (!args->json.empty()) {
        io::write_file_atomically(args->json, verify::verify_reports_json(merged.reports, merged.options).dump(2) + "\n");
      }
      for (const auto& r : merged.reports) {
        if (!r.ok()) return kExitDisagreement;
      }
      return kExitOk;
    };
  });
}

}  // namespace softhat::cli
