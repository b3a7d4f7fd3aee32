// Corpora a researcher can publish (issue 18): exact split lengths, exact
// per-length balance, no duplicates, labels that agree with independent
// oracles, MLRegTest's layout, and `validate` catching each kind of damage.
#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "cli/cli_helpers.h"
#include "cli/select.h"
#include "corpus/generate.h"
#include "io/file_util.h"
#include "lang/catalog.h"
#include "temp_path.h"
#include "verify/check.h"

using namespace softhat;
namespace fs = std::filesystem;

namespace {

// Checks one generated corpus: every word's length is one of its split's,
// balance is exact at every length without a recorded shortage, no word
// twice anywhere, every label agrees with every verdict source of the
// language (formula evaluator, regex, checker, automaton), and every border
// negative is one edit from a positive of its own split. Returns the number
// of (split, length) cells that were exactly balanced.
std::size_t check_corpus(const lang::Language& l, const corpus::GenerateOptions& o, const corpus::Corpus& c) {
  const std::vector<verify::VerdictSource> sources = verify::verdict_sources(l);
  REQUIRE(!sources.empty());
  std::set<std::string> all;
  std::size_t balanced = 0;
  for (std::size_t s = 0; s < o.splits.size(); ++s) {
    const corpus::Split& split = o.splits[s];
    std::map<std::size_t, std::pair<std::size_t, std::size_t>> counts;
    std::set<std::string> positives;
    for (const corpus::Example& e : c.splits[s]) {
      INFO(l.name() << " split " << split.name << " word " << e.word);
      CHECK(std::binary_search(split.lengths.begin(), split.lengths.end(), e.word.size()));
      CHECK(all.insert(e.word).second);
      for (const verify::VerdictSource& v : sources) CHECK(v.accepts(e.word) == e.label);
      auto& cell = counts[e.word.size()];
      (e.label ? cell.first : cell.second) += 1;
      if (e.label) positives.insert(e.word);
    }
    for (const corpus::Example& e : c.splits[s]) {
      if (e.kind != "border") continue;
      INFO(l.name() << " border " << e.word << " from " << e.from);
      CHECK(positives.count(e.from));
      const auto n = corpus::edit_neighbours(e.from, l.alphabet());
      CHECK(std::find(n.begin(), n.end(), e.word) != n.end());
    }
    for (std::size_t n : split.lengths) {
      const bool short_here = std::any_of(c.shortages.begin(), c.shortages.end(), [&](const corpus::Shortage& sh) {
        return sh.split == split.name && sh.length == n;
      });
      if (short_here) continue;
      const std::size_t want = corpus::words_at(o, split, n);
      INFO(l.name() << " split " << split.name << " length " << n);
      CHECK(counts[n].first == (want + 1) / 2);
      CHECK(counts[n].second == want / 2);
      ++balanced;
    }
  }
  return balanced;
}

corpus::GenerateOptions two_splits() {
  corpus::GenerateOptions o;
  o.splits = {corpus::parse_split("train:6-9:41"), corpus::parse_split("test:10-12:border")};
  o.per_length = 9;  // odd: 5 positives, 4 negatives
  o.threads = 2;
  return o;
}

}  // namespace

TEST_CASE("corpora: every catalogue language, border and uniform splits are exact and balanced", "[corpus]") {
  const lang::Catalog catalog = lang::Catalog::builtin();
  std::size_t languages = 0, cells = 0, full = 0;
  for (const lang::Language& l : catalog.languages()) {
    if (l.is_task()) continue;
    const corpus::GenerateOptions o = two_splits();
    const corpus::Corpus c = corpus::generate_corpus(l, o);
    const std::size_t balanced = check_corpus(l, o, c);
    ++languages;
    cells += balanced;
    full += c.shortages.empty();
    // A shortage is real: where the sampler knows how many words the class
    // has at that length, it took every one of them.
    for (const corpus::Shortage& sh : c.shortages) {
      INFO(l.name() << " " << corpus::describe_shortage(sh));
      if (!sh.exists.empty()) CHECK(sh.got == std::stoull(sh.exists));
      CHECK(sh.got < sh.wanted);
    }
  }
  CHECK(languages >= 35);
  CHECK(full >= 23);  // the others lack a class at some length 6-12 (a^n b^n, even-length, Dyck at odd n, ...)
  CHECK(cells >= 25 * 7);
}

#ifdef SOFTHAT_MLREGTEST_DIR
TEST_CASE("corpora: ten MLRegTest automata, exact and balanced, labels from an independent reading", "[corpus]") {
  const lang::Catalog catalog = lang::Catalog::builtin();
  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(SOFTHAT_MLREGTEST_DIR)) {
    if (e.path().extension() == ".att") files.push_back(e.path().string());
  }
  std::sort(files.begin(), files.end());
  REQUIRE(files.size() >= 10);
  std::size_t full = 0;
  for (std::size_t i = 0; i < 10; ++i) {
    const std::string& file = files[i * files.size() / 10];
    cli::Selection sel;
    sel.att = {file};
    const std::vector<lang::Language> langs = cli::select_languages(catalog, sel);
    REQUIRE(langs.size() == 1);
    const corpus::GenerateOptions o = two_splits();
    const corpus::Corpus c = corpus::generate_corpus(langs[0], o);
    check_corpus(langs[0], o, c);
    full += c.shortages.empty();
  }
  CHECK(full >= 5);
}
#endif

TEST_CASE("corpora: on a border corpus the length-parity baseline is exactly 50%", "[corpus]") {
  const lang::Catalog catalog = lang::Catalog::builtin();
  for (const char* name : {"a-at-odd", "flip-flop", "no-aa", "third-last-a"}) {
    corpus::GenerateOptions o;
    o.splits = {corpus::parse_split("test:8-13:border")};
    o.per_length = 20;
    const corpus::Corpus c = corpus::generate_corpus(catalog.find(name), o);
    INFO(name);
    REQUIRE(c.shortages.empty());
    std::size_t right = 0;
    for (const corpus::Example& e : c.splits[0]) right += (e.word.size() % 2 == 0) == e.label;
    CHECK(2 * right == c.splits[0].size());
  }
}

TEST_CASE("corpora: --mlregtest writes six balanced, paired splits that validate", "[corpus][cli]") {
#ifdef SOFTHAT_MLREGTEST_DIR
  for (const char* sample : {"04.04.SF.0.0.6", "04.04.SL.2.1.2", "16.16.LT.2.1.6"}) {
    const std::string att = std::string(SOFTHAT_MLREGTEST_DIR) + "/" + sample + ".att";
    REQUIRE(fs::exists(att));
    const fs::path dir = test::temp_path(std::string("mlregtest-") + sample);
    fs::remove_all(dir);
    const auto r = test::run_cli({"generate", "--att", att, "--mlregtest", "--out", dir.string()});
    INFO(sample << ": " << r.err);
    REQUIRE(r.status == 0);
    const auto manifest = nlohmann::json::parse(io::read_file((dir / "manifest.json").string()));
    REQUIRE(manifest["splits"].size() == 6);
    for (const auto& split : manifest["splits"]) {
      const std::string name = split["name"];
      const bool longer = name == "TestLR" || name == "TestLA";
      CHECK(split["file"] == std::string(sample) + "_" + name + ".txt");
      CHECK(split["words"] == 1000);
      CHECK(split["lengths"] == (longer ? "31-50" : "20-29"));
      CHECK(split["negatives"] == (name == "TestSA" || name == "TestLA" ? "border" : "uniform"));
      for (const auto& [len, c] : split["counts"].items()) {
        CHECK(c["positive"] == (longer ? 25 : 50));
        CHECK(c["negative"] == (longer ? 25 : 50));
      }
      CHECK(test::lines_of(io::read_file((dir / split["file"].get<std::string>()).string())).size() == 1000);
    }
    const auto v = test::run_cli({"validate", dir.string()});
    CHECK(v.status == 0);
    fs::remove_all(dir);
  }
#endif
}

namespace {
// A fresh small corpus with a border split, for damaging.
fs::path small_corpus(const std::string& name) {
  const fs::path dir = test::temp_path(name);
  fs::remove_all(dir);
  const auto r = test::run_cli({"generate", "no-aa", "--split", "train:6-8:30", "--split", "test:9-11:30:border",
                                "--out", dir.string()});
  REQUIRE(r.status == 0);
  REQUIRE(test::run_cli({"validate", dir.string()}).status == 0);
  return dir;
}
std::vector<std::string> read_lines(const fs::path& f) { return test::lines_of(io::read_file(f.string())); }
void write_lines(const fs::path& f, const std::vector<std::string>& lines) {
  std::string s;
  for (const std::string& l : lines) s += l + "\n";
  io::write_file_atomically(f.string(), s);
}
}  // namespace

TEST_CASE("corpora: validate names the first damaged file and line", "[corpus][cli]") {
  SECTION("a flipped label") {
    const fs::path dir = small_corpus("damage-label");
    auto lines = read_lines(dir / "test.tsv");
    std::string& l = lines[4];
    l = l.substr(0, l.find('\t')) + (l.find("TRUE") != std::string::npos ? "\tFALSE" : "\tTRUE");
    write_lines(dir / "test.tsv", lines);
    const auto r = test::run_cli({"validate", dir.string()});
    CHECK(r.status == 1);
    CHECK_THAT(r.err, Catch::Contains("test.tsv:5: '") && Catch::Contains("the language's oracle says"));
  }
  SECTION("a word moved to the wrong split") {
    const fs::path dir = small_corpus("damage-move");
    auto train = read_lines(dir / "train.tsv"), test_lines = read_lines(dir / "test.tsv");
    train.push_back(test_lines[0]);
    test_lines.erase(test_lines.begin());
    write_lines(dir / "train.tsv", train);
    write_lines(dir / "test.tsv", test_lines);
    const auto r = test::run_cli({"validate", dir.string()});
    CHECK(r.status == 1);
    CHECK_THAT(r.err, Catch::Contains(fmt::format("train.tsv:{}: '", train.size())) &&
                          Catch::Contains("outside the split's lengths 6-8"));
  }
  SECTION("a deleted line") {
    const fs::path dir = small_corpus("damage-delete");
    auto lines = read_lines(dir / "train.tsv");
    lines.erase(lines.begin() + 3);
    write_lines(dir / "train.tsv", lines);
    const auto r = test::run_cli({"validate", dir.string()});
    CHECK(r.status == 1);
    CHECK_THAT(r.err, Catch::Contains("train.tsv: length") && Catch::Contains("the manifest says"));
  }
  SECTION("an edited hash") {
    const fs::path dir = small_corpus("damage-hash");
    auto manifest = nlohmann::json::parse(io::read_file((dir / "manifest.json").string()));
    std::string h = manifest["splits"][1]["sha256"];
    h[0] = h[0] == '0' ? '1' : '0';
    manifest["splits"][1]["sha256"] = h;
    io::write_file_atomically((dir / "manifest.json").string(), manifest.dump(2));
    const auto r = test::run_cli({"validate", dir.string()});
    CHECK(r.status == 1);
    CHECK_THAT(r.err, Catch::Contains("test.tsv: SHA-256") && Catch::Contains("differs from the manifest's " + h));
  }
  SECTION("a word duplicated across splits") {
    const fs::path dir = small_corpus("damage-duplicate");
    auto train = read_lines(dir / "train.tsv");
    train.push_back(train[2]);
    write_lines(dir / "train.tsv", train);
    const auto r = test::run_cli({"validate", dir.string()});
    CHECK(r.status == 1);
    CHECK_THAT(r.err, Catch::Contains(fmt::format("train.tsv:{}: '", train.size())) &&
                          Catch::Contains("is also at train.tsv:3"));
  }
  SECTION("a border negative without its positive") {
    const fs::path dir = small_corpus("damage-pair");
    auto lines = read_lines(dir / "test.tsv");
    // Drop one positive and one negative of the same length: counts change, so
    // rewrite the manifest's counts too; the pairing check must still catch it.
    std::vector<std::string> kept;
    for (const std::string& l : lines) {
      if (l.find("\tTRUE") != std::string::npos) continue;  // no positive left at all
      kept.push_back(l);
    }
    write_lines(dir / "test.tsv", kept);
    auto manifest = nlohmann::json::parse(io::read_file((dir / "manifest.json").string()));
    for (auto& [len, c] : manifest["splits"][1]["counts"].items()) c["positive"] = 0;
    for (const auto& [len, want] : manifest["splits"][1]["wanted_per_length"].items()) {
      manifest["shortages"].push_back({{"split", "test"}, {"length", std::stoi(len)}, {"kind", "positive"}});
    }
    io::write_file_atomically((dir / "manifest.json").string(), manifest.dump(2));
    const auto r = test::run_cli({"validate", dir.string()});
    CHECK(r.status == 1);
    CHECK_THAT(r.err, Catch::Contains("test.tsv:1: the negative") && Catch::Contains("no positive of the split"));
  }
}

TEST_CASE("corpora: reruns leave no stale file, foreign folders need --force, modes follow the umask", "[corpus][cli]") {
  const fs::path dir = test::temp_path("rerun");
  fs::remove_all(dir);
  REQUIRE(test::run_cli({"generate", "contains-ab", "--split", "old:6-7", "--per-length", "4", "--out", dir.string()}).status == 0);
  REQUIRE(fs::exists(dir / "old.tsv"));
  REQUIRE(test::run_cli({"generate", "contains-ab", "--split", "new:6-7", "--per-length", "4", "--out", dir.string()}).status == 0);
  CHECK(fs::exists(dir / "new.tsv"));
  CHECK_FALSE(fs::exists(dir / "old.tsv"));
  std::size_t entries = 0;
  for (const auto& e : fs::directory_iterator(dir.parent_path())) {
    entries += e.path().filename().string().rfind("." + dir.filename().string(), 0) == 0;  // no .tmp/.old siblings
  }
  CHECK(entries == 0);
  const auto perms = fs::status(dir).permissions();
  CHECK((perms & fs::perms::others_read) != fs::perms::none);  // 0755 under the usual umask 022, not 0700
  CHECK((fs::status(dir / "new.tsv").permissions() & fs::perms::group_read) != fs::perms::none);
  fs::remove_all(dir);
  // A folder with other files is not replaced without --force, and the refusal comes before any work.
  fs::create_directories(dir);
  { std::ofstream(dir / "notes.txt") << "mine\n"; }
  const auto refused = test::run_cli({"generate", "contains-ab", "--lengths", "6", "--per-length", "4", "--out", dir.string()});
  CHECK(refused.status == 2);
  CHECK_THAT(refused.err, Catch::Contains("is a folder with files that is not a softhat corpus") &&
                              Catch::Contains("--force"));
  CHECK(fs::exists(dir / "notes.txt"));
  CHECK(test::run_cli({"generate", "contains-ab", "--lengths", "6", "--per-length", "4", "--out", dir.string(),
                       "--force"}).status == 0);
  CHECK_FALSE(fs::exists(dir / "notes.txt"));
  fs::remove_all(dir);
}

TEST_CASE("corpora: --out naming a link to a folder writes the folder and keeps the link", "[corpus][cli]") {
  const fs::path real = test::temp_path("linked-corpus"), link = test::temp_path("corpus-link");
  fs::remove_all(real);
  fs::remove(link);
  fs::create_directories(real);
  fs::create_symlink(real, link);
  for (const char* lengths : {"6", "6-7"}) {  // a new corpus, then one replacing it
    REQUIRE(test::run_cli({"generate", "contains-ab", "--lengths", lengths, "--per-length", "4", "--out",
                           link.string()}).status == 0);
    CHECK(fs::is_symlink(fs::symlink_status(link)));
    CHECK(fs::exists(real / "all.tsv"));
    CHECK(fs::exists(real / "manifest.json"));
    CHECK(test::run_cli({"validate", link.string()}).status == 0);
  }
  CHECK(test::lines_of(io::read_file((real / "all.tsv").string())).size() == 8);  // lengths 6 and 7, 4 words each
  fs::remove(link);
  fs::remove_all(real);
}

TEST_CASE("corpora: several languages, one sub-folder each, and --exclude keeps words out", "[corpus][cli]") {
  const fs::path dir = test::temp_path("many");
  fs::remove_all(dir);
  const auto r = test::run_cli({"generate", "contains-ab", "no-aa", "--lengths", "6-7", "--per-length", "4", "--out", dir.string()});
  REQUIRE(r.status == 0);
  CHECK(fs::exists(dir / "contains-ab" / "all.tsv"));
  CHECK(fs::exists(dir / "no-aa" / "manifest.json"));
  CHECK(test::run_cli({"validate", (dir / "no-aa").string()}).status == 0);
  // Excluding every word of one corpus from a second run with another seed.
  const fs::path other = test::temp_path("excluded");
  fs::remove_all(other);
  REQUIRE(test::run_cli({"generate", "contains-ab", "--lengths", "6-7", "--per-length", "4", "--seed", "9", "--exclude",
                         (dir / "contains-ab" / "all.tsv").string(), "--out", other.string()}).status == 0);
  std::set<std::string> first;
  for (const std::string& l : test::lines_of(io::read_file((dir / "contains-ab" / "all.tsv").string()))) first.insert(l);
  for (const std::string& l : test::lines_of(io::read_file((other / "all.tsv").string()))) CHECK_FALSE(first.count(l));
  CHECK(test::run_cli({"generate", "contains-ab", "no-aa", "--lengths", "6"}).status == 2);  // several need --out
  fs::remove_all(dir);
  fs::remove_all(other);
}

TEST_CASE("corpora: split syntax", "[corpus]") {
  const corpus::Split a = corpus::parse_split("train:20-29:1000");
  CHECK(a.name == "train");
  CHECK(a.lengths.size() == 10);
  CHECK(a.count == 1000u);
  CHECK_FALSE(a.negatives.has_value());
  const corpus::Split b = corpus::parse_split("t:0-6,64:border");
  CHECK(corpus::format_lengths(b.lengths) == "0-6,64");
  CHECK(b.negatives == corpus::Negatives::kBorder);
  CHECK_FALSE(b.count.has_value());
  CHECK(corpus::parse_split("5-9").name == "all");
  corpus::GenerateOptions o;
  const corpus::Split c = corpus::parse_split("x:1-3:10");
  CHECK(corpus::words_at(o, c, 1) == 4);  // 10 over 3 lengths: 4, 3, 3
  CHECK(corpus::words_at(o, c, 2) == 3);
  CHECK(corpus::words_at(o, c, 3) == 3);
  CHECK(corpus::words_at(o, c, 4) == 0);
  for (const char* bad : {"x:5-2", "x:1-3:many", "x:1-3:10:border:1", ":1-3", "a/b:1-3", "x:1-3:border:uniform"}) {
    INFO(bad);
    CHECK_THROWS_AS(corpus::parse_split(bad), InputError);
  }
}
