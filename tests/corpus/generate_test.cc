// softhat generate: reproducible to the byte for any thread count, balanced,
// distinct within and across splits, border pairs, manifest, shortages.
#include <catch2/catch.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>

#include "cli/cli_helpers.h"
#include "corpus/generate.h"
#include "io/file_util.h"
#include "lang/catalog.h"
#include "logic/eval.h"
#include "temp_path.h"

using namespace softhat;

TEST_CASE("generate: identical output for the same seed and any thread count", "[corpus]") {
  const std::vector<std::string> base = {"generate", "first-a", "--split", "train:20-29", "--split",
                                         "test:31-40", "--per-length", "50", "--format", "jsonl"};
  auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = base;
    args.insert(args.end(), extra.begin(), extra.end());
    return test::run_cli(args);
  };
  const auto one = with({"--threads", "1"});
  const auto two = with({"--threads", "2"});
  const auto again = with({"--threads", "2"});
  const auto other = with({"--seed", "7"});
  CHECK(one.status == 0);
  CHECK(one.out == two.out);
  CHECK(two.out == again.out);
  CHECK(one.out != other.out);
  CHECK(test::lines_of(one.out).size() == 50 * 20);
}

TEST_CASE("generate: balanced, labelled by the oracle, distinct across splits", "[corpus]") {
  const lang::Catalog catalog = lang::Catalog::builtin();
  for (const char* name : {"astar-bstar", "a-since-b", "majority", "parity", "dyck-1"}) {
    const lang::Language& l = catalog.find(name);
    corpus::GenerateOptions o;
    o.splits = {corpus::parse_split("train:8-12"), corpus::parse_split("test:10-14")};
    o.per_length = 20;
    o.threads = 2;
    const corpus::Corpus c = corpus::generate_corpus(l, o);
    std::set<std::string> all;
    std::size_t total = 0;
    for (std::size_t s = 0; s < c.splits.size(); ++s) {
      std::map<std::size_t, std::pair<int, int>> per_length;
      for (const corpus::Example& e : c.splits[s]) {
        INFO(name << " " << e.word);
        const bool truth = l.checker ? l.checker->accepts(e.word) : l.regex->accepts(e.word);
        CHECK(e.label == truth);
        all.insert(e.word);
        ++total;
        auto& pl = per_length[e.word.size()];
        (e.label ? pl.first : pl.second)++;
      }
      for (const auto& entry : per_length) {
        const std::size_t len = entry.first;  // (clang 14 lambdas cannot capture structured bindings)
        const auto& counts = entry.second;
        INFO(name << " split " << s << " length " << len);
        const bool short_here = std::any_of(c.shortages.begin(), c.shortages.end(), [&](const corpus::Shortage& sh) {
          return sh.split == o.splits[s].name && sh.length == len;
        });
        if (!short_here) {
          CHECK(counts.first == 10);
          CHECK(counts.second == 10);
        }
      }
    }
    CHECK(all.size() == total);  // no duplicates within or across splits
  }
}

TEST_CASE("generate: border negatives are one edit from their positive", "[corpus]") {
  const lang::Catalog catalog = lang::Catalog::builtin();
  for (const char* name : {"contains-ab", "astar-bstar", "dyck-1", "flip-flop"}) {
    const lang::Language& l = catalog.find(name);
    corpus::GenerateOptions o;
    o.splits = {corpus::parse_split("20-24")};
    o.per_length = 10;
    o.negatives = corpus::Negatives::kBorder;
    const corpus::Corpus c = corpus::generate_corpus(l, o);
    std::size_t borders = 0;
    for (const corpus::Example& e : c.splits[0]) {
      if (e.kind != "border") continue;
      ++borders;
      INFO(name << ": " << e.from << " -> " << e.word);
      CHECK_FALSE(e.label);
      CHECK_FALSE(logic::accepts(*l.formula, e.word));
      CHECK(logic::accepts(*l.formula, e.from));
      const auto n = corpus::edit_neighbours(e.from, l.alphabet());
      CHECK(std::find(n.begin(), n.end(), e.word) != n.end());
    }
    CHECK(borders >= 15);  // dyck-1 has words of even lengths only: 3 x 5
  }
}

TEST_CASE("generate: --out writes one file per split and a manifest, shortages are refused unless allowed", "[corpus]") {
  namespace fs = std::filesystem;
  const fs::path dir = softhat::test::temp_path("generate");
  fs::remove_all(dir);
  const std::vector<std::string> args = {"generate", "anbn", "--split", "train:4-6", "--split", "test:8-8",
                                         "--per-length", "6", "--out", dir.string()};
  // a^n b^n has one word of each even length and none of odd length: strict
  // balance refuses before anything is written.
  const auto strict = test::run_cli(args);
  CHECK(strict.status == 2);
  CHECK(strict.err ==
        "softhat: split train length 4: found 1 positive words of the 3 wanted (1 exist) (and 3 more); "
        "--allow-shortage writes what exists and records the shortages in the manifest\n");
  CHECK_FALSE(fs::exists(dir));
  std::vector<std::string> allowed = args;
  allowed.push_back("--allow-shortage");
  const auto r = test::run_cli(allowed);
  CHECK(r.status == 0);
  CHECK(r.err.find("softhat: split train length 5: found 0 positive words of the 3 wanted (0 exist)") != std::string::npos);
  CHECK(io::read_file((dir / "train.tsv").string()).find("aabb\tTRUE\n") != std::string::npos);
  const auto manifest = nlohmann::json::parse(io::read_file((dir / "manifest.json").string()));
  CHECK(manifest["language"] == "anbn");
  CHECK(manifest["seed"] == kDefaultSeed);
  CHECK(manifest["allow_shortage"] == true);
  CHECK(manifest["command"].get<std::string>().find("generate anbn") != std::string::npos);
  CHECK(manifest["splits"][0]["counts"]["4"]["positive"] == 1);
  CHECK(manifest["splits"][0]["counts"]["4"]["negative"] == 3);
  CHECK(manifest["shortages"].size() == 4);  // train 4, 5, 6 and test 8 (positives)
  std::size_t files = 0;
  for (const auto& e : fs::directory_iterator(dir)) files += e.is_regular_file();
  CHECK(files == 3);  // train.tsv, test.tsv, manifest.json; no temporaries
  CHECK(test::run_cli({"validate", dir.string()}).status == 0);
  fs::remove_all(dir);
  CHECK(test::run_cli({"generate", "anbn", "--split", "x:5-2"}).status == 2);
  CHECK(test::run_cli({"generate", "anbn"}).status == 2);
}
