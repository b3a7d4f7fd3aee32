// softhat generate: balanced, reproducible corpora with exact length splits
// and near-miss negatives; --mlregtest writes MLRegTest's six splits.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <filesystem>
#include <memory>
#include <ostream>

#include "cli/command.h"
#include "corpus/output.h"
#include "corpus/validate.h"
#include "io/file_util.h"
#include "io/hash.h"
#include "logic/print.h"
#include "util/error.h"
#include "util/memory.h"
#include "util/symbols.h"
#include "util/lines.h"
#include "words/words.h"

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
  bool force = false;
  bool allow_shortage = false;
  bool mlregtest = false;
  std::string size = "small";
  std::vector<std::string> exclude;
};

// The splits the flags ask for (--mlregtest, --lengths, --split), checked.
std::vector<corpus::Split> requested_splits(const Args& a, const std::string& language) {
  std::vector<corpus::Split> splits;
  if (a.mlregtest) {
    if (!a.lengths.empty() || !a.splits.empty()) throw InputError("--mlregtest sets the splits: drop --lengths and --split");
    splits = corpus::mlregtest_splits(language, corpus::mlregtest_split_size(a.size));
  } else {
    if (!a.lengths.empty()) splits.push_back(corpus::parse_split(a.lengths));
    for (const std::string& s : a.splits) splits.push_back(corpus::parse_split(s));
  }
  if (splits.empty()) throw InputError("no lengths to generate: give --lengths LENGTHS, --split NAME:LENGTHS or --mlregtest");
  for (std::size_t i = 0; i < splits.size(); ++i) {
    for (std::size_t j = 0; j < i; ++j) {
      if (splits[i].name == splits[j].name) throw InputError(fmt::format("split '{}' is given twice", splits[i].name));
    }
  }
  return splits;
}

// How validate rebuilds the oracle: the way the language was selected.
// Keys in alphabetical order: shards carry it through unordered JSON, and the
// merged manifest must equal one run's byte for byte.
nlohmann::ordered_json language_source(const Selection& sel, const lang::Language& l) {
  nlohmann::ordered_json j;
  j["alphabet"] = sym::encode(l.alphabet());
  if (!sel.names.empty() || sel.all) {
    j["name"] = l.name();
  } else if (!sel.att.empty()) {
    const std::string file = std::filesystem::absolute(l.spec.automaton_file).lexically_normal().string();
    j["att"] = file;
    j["att_sha256"] = io::sha256_hex(io::read_file(l.spec.automaton_file));
  } else if (sel.task) {
    j["hops"] = l.spec.task->hops;
    j["task"] = l.spec.task->kind;
  } else {
    if (l.spec.formula) j["formula"] = *l.spec.formula;
    if (l.spec.regex) j["regex"] = *l.spec.regex;
  }
  return j;
}

// Words never to emit: every line's first column (a corpus file, or a word list).
std::vector<std::string> excluded_words(const std::vector<std::string>& files, const std::string& alphabet) {
  std::vector<std::string> out;
  for (const std::string& f : files) {
    const std::string text = io::read_file(f);
    const std::vector<std::string_view> lines = text_lines(text);
    for (std::size_t line = 1; line <= lines.size(); ++line) {
      std::string_view w = lines[line - 1];
      if (const std::size_t tab = w.find('\t'); tab != std::string_view::npos) w = w.substr(0, tab);
      std::string codes;
      if (auto error = io::decode_word(w, alphabet, codes)) throw InputError(fmt::format("--exclude {}:{}: {}", f, line, *error));
      out.push_back(std::move(codes));
    }
  }
  return out;
}

// The command of the equivalent single run: without --shard and --out.
std::vector<std::string> unsharded_command(const std::vector<std::string>& args) {
  std::vector<std::string> command;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--shard" || a == "--out") {
      ++i;
      continue;
    }
    if (a.rfind("--shard=", 0) == 0 || a.rfind("--out=", 0) == 0) continue;
    command.push_back(a);
  }
  return command;
}

int generate_one(Context& ctx, const Args& a, const lang::Language& language, const std::string& out) {
  corpus::GenerateOptions options = a.options;
  options.max_states = ctx.max_states;
  options.max_memory = ctx.max_memory;
  options.splits = requested_splits(a, language.name());
  options.exclude = excluded_words(a.exclude, language.alphabet());
  // The corpus is held whole before it is written: estimate it first
  // (each word's symbols plus its record, about 64 bytes).
  std::size_t bytes = 0, words = 0;
  for (const corpus::Split& split : options.splits) {
    for (std::size_t n : split.lengths) {
      const std::size_t k = corpus::words_at(options, split, n);
      words = util::saturating_sum({words, k});
      bytes = util::saturating_sum({bytes, util::saturating_product({k, util::saturating_sum({n, 64})})});
    }
  }
  util::check_memory(bytes, ctx.max_memory, fmt::format("a corpus of {} words", words));
  const io::WordFormat format = a.mlregtest ? io::WordFormat::kTsv : a.format;
  const std::string formula = language.formula ? logic::to_string(*language.formula) : "";
  corpus::ManifestInfo info{language.name(), language.alphabet(), formula, "", &options, format,
                            language_source(a.selection, language), a.allow_shortage};
  const std::unique_ptr<util::Progress> progress = ctx.progress("generate " + language.name(), "lengths");
  options.progress = progress.get();
  if (!a.shard.empty()) {
    const Shard shard = parse_shard(a.shard);
    const std::vector<corpus::LengthUnit> units = corpus::generate_units(language, options, shard);
    progress->finish();
    io::write_file_atomically(out, corpus::corpus_shard_json(units, info, shard, corpus::sampling_method(language),
                                                             unsharded_command(ctx.args)));
    ctx.err << fmt::format("softhat: wrote shard {} ({} lengths) to {}\n", shard.str(), units.size(), out);
    return kExitOk;
  }
  const corpus::Corpus c = corpus::generate_corpus(language, options);
  progress->finish();
  refuse_shortages(c, a.allow_shortage);
  report_shortages(ctx, c);
  if (out.empty()) {
    for (std::size_t s = 0; s < c.splits.size(); ++s) ctx.out << corpus::format_split(c.splits[s], options.splits[s].name, format);
    return kExitOk;
  }
  info.command = fmt::format("softhat {}", fmt::join(ctx.args, " "));
  corpus::write_corpus_dir(c, out, info);
  std::size_t total = 0;
  for (const auto& s : c.splits) total += s.size();
  ctx.err << fmt::format("softhat: wrote {} words in {} splits to {}\n", total, c.splits.size(), out);
  return kExitOk;
}

}  // namespace

void refuse_shortages(const corpus::Corpus& c, bool allow) {
  if (c.shortages.empty() || allow) return;
  const std::string more = c.shortages.size() > 1 ? fmt::format(" (and {} more)", c.shortages.size() - 1) : "";
  throw InputError(fmt::format("{}{}; --allow-shortage writes what exists and records the shortages in the manifest",
                               corpus::describe_shortage(c.shortages[0]), more));
}

void report_shortages(Context& ctx, const corpus::Corpus& c) {
  for (const corpus::Shortage& s : c.shortages) ctx.err << "softhat: " << corpus::describe_shortage(s) << "\n";
}

void setup_generate(CLI::App& app, Runner& runner) {
  CLI::App* sub = app.add_subcommand("generate", "generate labelled corpora (balanced, uniform, with exact length splits); "
                                                 "several languages or --all: one sub-folder of --out each");
  auto args = std::make_shared<Args>();
  add_selection(sub, args->selection);
  sub->add_option("--lengths", args->lengths, "LENGTHS, e.g. 20-29 or 0-6,64 (one split named 'all')");
  sub->add_option("--split", args->splits,
                  "NAME:LENGTHS[:COUNT][:uniform|border], repeatable (COUNT words spread evenly over the lengths; "
                  "default --per-length each), e.g. --split train:20-29:1000 --split test:31-50:1000:border");
  sub->add_option("--per-length", args->options.per_length,
                  "words per length: ceil(N/2) positives and floor(N/2) negatives (default 100)");
  sub->add_flag("--balance,!--natural", args->options.balance,
                "balanced positives/negatives (default); --natural: uniform words, labelled");
  add_enum_option(sub, "--negatives", args->options.negatives, kNegativesNames,
                  "uniform (default) or border (edit distance 1 from a positive of the split, same split lengths)");
  sub->add_flag("--allow-shortage", args->allow_shortage,
                "write a length that has too few words of a label as it is, and record it in the manifest "
                "(default: refuse with exit 2 before writing anything)");
  sub->add_flag("--mlregtest", args->mlregtest,
                "MLRegTest's layout: <name>_{Train,Dev,TestSR,TestSA,TestLR,TestLA}.txt in --out");
  sub->add_option("--size", args->size, "--mlregtest: small (1,000 words a split), mid (10,000) or large (100,000)")
      ->check(CLI::IsMember({"small", "mid", "large"}));
  sub->add_option("--exclude", args->exclude, "a file of words (first column) never to emit, e.g. another corpus's split; repeatable");
  sub->add_option("--seed", args->options.seed, "random seed (fixed default)");
  sub->add_option("--threads", args->options.threads, "worker threads (output is identical for any count)")
      ->check(CLI::Range(1, 256));
  add_enum_option(sub, "--format", args->format, kFormatNames, "tsv (word, TRUE/FALSE) or jsonl");
  sub->add_option("--out", args->out, "write DIR/<split>.<format> and DIR/manifest.json instead of stdout");
  sub->add_flag("--force", args->force, "replace the files of an --out folder that is not a softhat corpus");
  sub->add_option("--shard", args->shard, "K/N: generate only this shard's lengths, to the JSON file --out "
                                          "(combine with `softhat merge`)");
  sub->callback([&runner, args] {
    runner = [args](Context& ctx) {
      if (!args->shard.empty() && args->out.empty()) throw InputError("--shard needs --out FILE (the shard's JSON file)");
      if (args->mlregtest && args->out.empty()) throw InputError("--mlregtest needs --out DIR");
      if (args->mlregtest && args->format != io::WordFormat::kTsv) throw InputError("--mlregtest writes MLRegTest's TSV files: drop --format");
      // Several languages write one sub-folder each (checked below, still before any work).
      const bool many = args->selection.all || args->selection.names.size() > 1 ||
                        (!args->selection.att.empty() && att_files(args->selection.att).size() > 1);
      if (args->shard.empty() && !args->out.empty() && !many) corpus::check_corpus_target(args->out, args->force);
      const std::vector<lang::Language> langs = ctx.select(args->selection);
      if (langs.size() > 1 && (args->out.empty() || !args->shard.empty())) {
        throw InputError(fmt::format("{} languages: give --out DIR (one sub-folder each; not with --shard)", langs.size()));
      }
      if (langs.size() == 1 && !many) return generate_one(ctx, *args, langs[0], args->out);
      for (const lang::Language& l : langs) {
        const std::string dir = (std::filesystem::path(args->out) / l.name()).string();
        corpus::check_corpus_target(dir, args->force);  // every one before the first is generated
      }
      for (const lang::Language& l : langs) generate_one(ctx, *args, l, (std::filesystem::path(args->out) / l.name()).string());
      return kExitOk;
    };
  });
}

}  // namespace softhat::cli
