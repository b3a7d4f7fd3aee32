// softhat merge: shard reports of `verify --shard K/N --json` combined into
// exactly what one run would have printed and written.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <map>
#include <memory>
#include <ostream>

#include "cli/command.h"
#include "cli/json_option.h"
#include "corpus/output.h"
#include "io/file_util.h"
#include "util/error.h"
#include "verify/verify.h"

namespace softhat::cli {

namespace {
struct Args {
  std::vector<std::string> files;
  JsonOption json;
  std::string out;
};
}  // namespace

void setup_merge(CLI::App& app, Runner& runner) {
  CLI::App* sub = app.add_subcommand("merge", "combine the shards of `verify --shard K/N --json` or `generate --shard K/N --out` into one run's output");
  auto args = std::make_shared<Args>();
  sub->add_option("reports", args->files, "the shards' JSON reports (every K of one N, once)")->required();
  args->json.add_to(sub);  // verify reports: the merged report, as verify writes it
  sub->add_option("--out", args->out, "corpus shards: write DIR/<split> files and the manifest (else stdout)");
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
      if (shards[0].contains("corpus_shard")) {
        const corpus::MergedCorpus m = corpus::merge_corpus_shards(shards, args->files);
        refuse_shortages(m.corpus, m.allow_shortage);
        report_shortages(ctx, m.corpus);
        // The merged corpus passes validate (in memory) before it is written.
        std::vector<std::string> contents;
        std::map<std::string, std::string> files;
        for (std::size_t s = 0; s < m.corpus.splits.size(); ++s) {
          contents.push_back(corpus::format_split(m.corpus.splits[s], m.options.splits[s].name, m.format));
          files[corpus::split_file(m.options.splits[s], m.format)] = contents.back();
        }
        corpus::ManifestInfo check_info{m.language, m.alphabet, m.formula, "", &m.options, m.format, m.source,
                                        m.allow_shortage};
        const nlohmann::json manifest = nlohmann::json::parse(corpus::manifest_json(m.corpus, check_info, contents));
        const auto problem = validate_in(ctx, manifest, Selection{}, [&](const std::string& f) -> std::optional<std::string> {
          const auto it = files.find(f);
          if (it == files.end()) return std::nullopt;
          return it->second;
        });
        if (problem) {
          throw InputError(fmt::format("merge: the merged corpus is not valid: {}{}: {}", problem->file,
                                       problem->line ? fmt::format(":{}", problem->line) : "", problem->what));
        }
        if (args->out.empty()) {
          for (std::size_t s = 0; s < m.corpus.splits.size(); ++s) {
            ctx.out << corpus::format_split(m.corpus.splits[s], m.options.splits[s].name, m.format);
          }
          return kExitOk;
        }
        std::vector<std::string> command = m.command_args;
        command.push_back("--out");
        command.push_back(args->out);
        corpus::ManifestInfo info{m.language, m.alphabet, m.formula,
                                  fmt::format("softhat {}", fmt::join(command, " ")), &m.options, m.format, m.source,
                                  m.allow_shortage};
        corpus::check_corpus_target(args->out, false);
        corpus::write_corpus_dir(m.corpus, args->out, info);
        std::size_t total = 0;
        for (const auto& s : m.corpus.splits) total += s.size();
        ctx.err << fmt::format("softhat: wrote {} words in {} splits to {}\n", total, m.corpus.splits.size(), args->out);
        return kExitOk;
      }
      verify::MergedVerify merged;
      try {
        merged = verify::merge_verify_json(shards, args->files);
      } catch (const nlohmann::json::exception& e) {
        throw InputError(fmt::format("merge: not a verify report: {}", e.what()));
      }
      args->json.table(ctx, verify::format_verify_reports(merged.reports));
      args->json.write(ctx, verify::verify_reports_json(merged.reports, merged.options), "verify");
      for (const auto& r : merged.reports) {
        if (!r.ok()) return kExitDisagreement;
      }
      return kExitOk;
    };
  });
}

}  // namespace softhat::cli
