// softhat generate: balanced, reproducible corpora with length splits and
// near-miss negatives.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <memory>
#include <ostream>
#include <thread>

#include "cli/command.h"
#include "io/file_util.h"
#include "corpus/output.h"
#include "logic/print.h"
#include "util/error.h"

namespace softhat::cli {

namespace {
struct Args {
  cli::Selection selection;
  std::string lengths;
  std::vector<std::string> splits;
  corpus::GenerateOptions options;
  io::WordFormat format = io::WordFormat::kTsv;
  std::string out;
  std::string shard;
};
}  // namespace

void report_shortages(Context& ctx, const corpus::Corpus& c) {
  for (const corpus::Shortage& s : c.shortages) {
    ctx.err << fmt::format("softhat: split {} length {}: found {} {} words of the {} wanted\n", s.split, s.length,
                           s.got, s.kind, s.wanted);
  }
  for (const corpus::DroppedDuplicates& d : c.dropped) {
    ctx.err << fmt::format("softhat: split {}: {} border negatives dropped as duplicates of other words\n", d.split,
                           d.count);
  }
}

void setup_generate(CLI::App& app, Runner& runner) {
  CLI::App* sub = app.add_subcommand("generate", "generate a labelled corpus (balanced, uniform, with splits)");
  auto args = std::make_shared<Args>();
  add_selection(sub, args->selection);
  sub->add_option("--lengths", args->lengths, "lengths A-B (one split named 'all')");
  sub->add_option("--split", args->splits, "NAME:A-B, repeatable (e.g. --split train:20-29 --split test:31-50)");
  sub->add_option("--per-length", args->options.per_length, "positives and negatives per length (default 100)");
  sub->add_flag("--balance,!--natural", args->options.balance,
                "balanced positives/negatives (default); --natural: uniform words, labelled");
  add_enum_option(sub, "--negatives", args->options.negatives, kNegativesNames, "uniform (default) or border (edit distance 1 from a positive)");
  sub->add_option("--seed", args->options.seed, "random seed (fixed default)");
  sub->add_option("--threads", args->options.threads, "worker threads (output is identical for any count)")
      ->check(CLI::Range(1, 256));
  add_enum_option(sub, "--format", args->format, kFormatNames, "tsv (word, TRUE/FALSE) or jsonl");
  sub->add_option("--out", args->out, "write DIR/<split>.<format> and DIR/manifest.json instead of stdout");
  sub->add_option("--shard", args->shard, "K/N: generate only this shard's lengths, to the JSON file --out "
                                          "(combine with `softhat merge`)");
  sub->callback([&runner, args] {
    runner = [args](Context& ctx) {
      args->options.max_states = ctx.max_states;
      if (args->selection.all || args->selection.names.size() > 1) throw InputError("generate takes one language");
      const std::vector<lang::Language> langs = ctx.select(args->selection);
      if (langs.size() != 1) throw InputError(fmt::format("generate takes one language; --att names {} files", langs.size()));
      const lang::Language& language = langs[0];
      if (!args->lengths.empty()) args->options.splits.push_back(corpus::parse_split(args->lengths));
      for (const std::string& s : args->splits) args->options.splits.push_back(corpus::parse_split(s));
      for (std::size_t i = 0; i < args->options.splits.size(); ++i) {
        for (std::size_t j = 0; j < i; ++j) {
          if (args->options.splits[i].name == args->options.splits[j].name) {
            throw InputError(fmt::format("split '{}' is given twice", args->options.splits[i].name));
          }
        }
      }
      const io::WordFormat format = args->format;
      const std::string formula = language.formula ? logic::to_string(*language.formula) : "";
      if (!args->shard.empty()) {
        const Shard shard = parse_shard(args->shard);
        if (args->out.empty()) throw InputError("--shard needs --out FILE (the shard's JSON file)");
        // The command of the equivalent single run: without --shard and --out.
        std::vector<std::string> command;
        for (std::size_t i = 0; i < ctx.args.size(); ++i) {
          const std::string& a = ctx.args[i];
          if (a == "--shard" || a == "--out") {
            ++i;
            continue;
          }
          if (a.rfind("--shard=", 0) == 0 || a.rfind("--out=", 0) == 0) continue;
          command.push_back(a);
        }
        const std::vector<corpus::LengthUnit> units = corpus::generate_units(language, args->options, shard);
        corpus::ManifestInfo info{language.name(), language.alphabet(), formula, "", &args->options, format};
        io::write_file_atomically(args->out, corpus::corpus_shard_json(units, info, shard,
                                                                       corpus::sampling_method(language), command));
        ctx.err << fmt::format("softhat: wrote shard {} ({} lengths) to {}\n", shard.str(), units.size(), args->out);
        return 0;
      }
      const corpus::Corpus c = corpus::generate_corpus(language, args->options);
      report_shortages(ctx, c);
      if (args->out.empty()) {
        for (std::size_t s = 0; s < c.splits.size(); ++s) {
          ctx.out << corpus::format_split(c.splits[s], args->options.splits[s].name, format);
        }
        return 0;
      }
      corpus::ManifestInfo info{language.name(), language.alphabet(), formula,
                                fmt::format("softhat {}", fmt::join(ctx.args, " ")), &args->options, format};
      corpus::write_corpus_dir(c, args->out, info);
      std::size_t total = 0;
      for (const auto& s : c.splits) total += s.size();
      ctx.err << fmt::format("softhat: wrote {} words in {} splits to {}\n", total, c.splits.size(), args->out);
      return 0;
    };
  });
}

}  // namespace softhat::cli
