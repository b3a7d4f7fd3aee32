// softhat validate DIR: re-checks a corpus someone gives you against its
// manifest and the language's oracle (corpus/validate.h).
#include <fmt/format.h>

#include <filesystem>
#include <memory>
#include <ostream>

#include "cli/command.h"
#include "corpus/validate.h"
#include "io/file_util.h"
#include "io/hash.h"
#include "io/json_number.h"
#include "util/error.h"
#include "util/symbols.h"
#include "verify/check.h"

namespace softhat::cli {

namespace {
struct Args {
  std::string dir;
  cli::Selection selection;
};

}  // namespace

Selection recorded_selection(const nlohmann::json& source) {
  Selection s;
  auto text = [&](const char* key) { return source.at(key).get<std::string>(); };
  if (source.contains("name")) {
    s.names = {text("name")};
    return s;
  }
  s.alphabet = text("alphabet");
  if (source.contains("att")) {
    const std::string file = text("att");
    std::string bytes;
    try {
      bytes = io::read_file(file);
    } catch (const InputError&) {
      throw InputError(fmt::format("the corpus's automaton {} cannot be read: name the language (e.g. --att FILE)", file));
    }
    if (io::sha256_hex(bytes) != text("att_sha256")) {
      throw InputError(fmt::format("the corpus's automaton {} has changed since generate read it (SHA-256 differs): "
                                   "name the language (e.g. --att FILE)", file));
    }
    s.att = {file};
  } else if (source.contains("task")) {
    s.task = text("task");
    s.hops = io::json_int(source.at("hops"), "hops");
  } else {
    if (source.contains("formula")) s.formula = text("formula");
    if (source.contains("regex")) s.regex = text("regex");
  }
  return s;
}

std::optional<corpus::Problem> validate_in(Context& ctx, const nlohmann::json& manifest, const Selection& given,
                                           const std::function<std::optional<std::string>(const std::string&)>& read,
                                           std::string* language_name) {
  const Selection sel = given.any() ? given : recorded_selection(manifest.at("source"));
  const std::vector<lang::Language> langs = ctx.select(sel);
  if (langs.size() != 1) throw InputError("validate takes one language");
  const lang::Language& language = langs[0];
  if (language_name) *language_name = language.name();
  const auto truth = verify::oracle_verdict(language);
  const corpus::Oracle oracle{language.alphabet(), [&](const std::string& w) {
                                const Verdict v = truth(w);
                                return v.is_output() ? sym::encode(v.symbols()) : v.str();
                              }};
  return corpus::validate_corpus(manifest, read, oracle);
}

void setup_validate(CLI::App& app, Runner& runner) {
  CLI::App* sub = app.add_subcommand(
      "validate", "re-check a corpus folder: hashes, labels against the oracle, split lengths, balance, duplicates, "
                  "border pairing (exit 1 naming the first bad file and line)");
  auto args = std::make_shared<Args>();
  sub->add_option("dir", args->dir, "the corpus folder (with manifest.json)")->required();
  add_language_flags(sub, args->selection);
  sub->add_option("--language", args->selection.names, "the catalogue language (default: the manifest's)");
  sub->callback([&runner, args] {
    runner = [args](Context& ctx) {
      namespace fs = std::filesystem;
      const fs::path dir(args->dir);
      nlohmann::json manifest;
      try {
        manifest = nlohmann::json::parse(io::read_file((dir / "manifest.json").string()));
        if (!manifest.contains("softhat_corpus")) throw InputError("");
      } catch (const std::exception&) {
        throw InputError(fmt::format("{}: not a softhat corpus (no readable manifest.json of one)", args->dir));
      }
      const auto read = [&](const std::string& file) -> std::optional<std::string> {
        std::error_code ec;
        if (file.find('/') != std::string::npos || !fs::is_regular_file(dir / file, ec)) return std::nullopt;
        return io::read_file((dir / file).string());
      };
      std::string name;
      const auto problem = validate_in(ctx, manifest, args->selection, read, &name);
      if (problem) {
        const std::string where = problem->line ? fmt::format("{}:{}", problem->file, problem->line) : problem->file;
        ctx.err << fmt::format("softhat: {}: {}\n", (dir / where).string(), problem->what);
        return kExitDisagreement;
      }
      std::size_t words = 0;
      for (const auto& s : manifest.at("splits")) words += io::json_unsigned(s.at("words"), "words");
      ctx.out << fmt::format("{}: valid: {} splits, {} words, labels agree with {}\n", args->dir,
                             manifest.at("splits").size(), words, name);
      return kExitOk;
    };
  });
}

}  // namespace softhat::cli
