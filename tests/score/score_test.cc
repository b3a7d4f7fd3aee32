// softhat score: hand-counted accuracies on a corpus whose predictions were
// altered at known lines; --model against run's own output; keyed
// predictions and their errors.
#include <catch2/catch.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "cli/cli_helpers.h"
#include "io/file_util.h"
#include "score/score.h"
#include "temp_path.h"

using namespace softhat;
namespace fs = std::filesystem;

namespace {
std::string flip(const std::string& line) {
  const std::size_t tab = line.find('\t');
  return line.substr(0, tab) + (line.substr(tab + 1) == "TRUE" ? "\tFALSE" : "\tTRUE");
}
}  // namespace

TEST_CASE("score: hand-counted per-length accuracies after known flips", "[score][cli]") {
  const fs::path dir = test::temp_path("score-corpus");
  fs::remove_all(dir);
  // train: lengths 6-7, 4 words each; test: lengths 9-10, 4 words each.
  REQUIRE(test::run_cli({"generate", "no-aa", "--split", "train:6-7", "--split", "test:9-10", "--per-length", "4",
                         "--out", dir.string()}).status == 0);
  std::vector<std::string> train = test::lines_of(io::read_file((dir / "train.tsv").string()));
  std::vector<std::string> test_lines = test::lines_of(io::read_file((dir / "test.tsv").string()));
  REQUIRE(train.size() == 8);
  REQUIRE(test_lines.size() == 8);
  // Flip two train words of length 6 and one test word of length 10.
  std::size_t flipped6 = 0, flipped10 = 0;
  for (std::string& l : train) {
    if (flipped6 < 2 && l.find('\t') == 6) {
      l = flip(l);
      ++flipped6;
    }
  }
  for (std::string& l : test_lines) {
    if (flipped10 < 1 && l.find('\t') == 10) {
      l = flip(l);
      ++flipped10;
    }
  }
  REQUIRE(flipped6 == 2);
  REQUIRE(flipped10 == 1);
  std::string preds;
  for (const auto& l : train) preds += l + "\n";
  for (const auto& l : test_lines) preds += l + "\n";
  const fs::path pf = test::temp_path("score-preds.tsv");
  io::write_file_atomically(pf.string(), preds);
  const auto r = test::run_cli({"score", dir.string(), "--predictions", pf.string(), "--json"});
  REQUIRE(r.status == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["overall"]["words"] == 16);
  CHECK(j["overall"]["correct"] == 13);
  CHECK(j["overall"]["accuracy"] == Approx(13.0 / 16));
  CHECK(j["splits"]["train"]["lengths"]["6"]["correct"] == 2);
  CHECK(j["splits"]["train"]["lengths"]["6"]["accuracy"] == Approx(0.5));
  CHECK(j["splits"]["train"]["lengths"]["7"]["accuracy"] == Approx(1.0));
  CHECK(j["splits"]["test"]["lengths"]["9"]["accuracy"] == Approx(1.0));
  CHECK(j["splits"]["test"]["lengths"]["10"]["accuracy"] == Approx(0.75));
  CHECK(j["splits"]["test"]["accuracy"] == Approx(7.0 / 8));
  CHECK(j["macro_accuracy"] == Approx((0.5 + 1 + 1 + 0.75) / 4));
  // The same predictions keyed by word, in another order, give the same numbers.
  std::string reversed;
  for (auto it = test_lines.rbegin(); it != test_lines.rend(); ++it) reversed += *it + "\n";
  for (auto it = train.rbegin(); it != train.rend(); ++it) reversed += *it + "\n";
  io::write_file_atomically(pf.string(), reversed);
  const auto keyed = test::run_cli({"score", dir.string(), "--predictions", pf.string(), "--json"});
  CHECK(keyed.out == r.out);
  // A duplicate key, an unknown word and a missing word name the line.
  io::write_file_atomically(pf.string(), reversed + test_lines[0] + "\n");
  CHECK_THAT(test::run_cli({"score", dir.string(), "--predictions", pf.string()}).err,
             Catch::Contains(":17: a second prediction for"));
  io::write_file_atomically(pf.string(), reversed + "bbbbbbbbbbbbbbbbbbbb\tTRUE\n");
  CHECK_THAT(test::run_cli({"score", dir.string(), "--predictions", pf.string()}).err,
             Catch::Contains(":17: 'bbbbbbbbbbbbbbbbbbbb' is not a word of the corpus"));
  io::write_file_atomically(pf.string(), reversed.substr(reversed.find('\n') + 1));
  CHECK_THAT(test::run_cli({"score", dir.string(), "--predictions", pf.string()}).err,
             Catch::Contains("no prediction for"));
  fs::remove_all(dir);
  fs::remove(pf);
}

TEST_CASE("score: --model equals score on run's own output", "[score][cli]") {
  const fs::path dir = test::temp_path("score-model");
  const fs::path model = test::temp_path("score-model.safetensors");
  const fs::path preds = test::temp_path("score-model-preds.tsv");
  fs::remove_all(dir);
  // A deliberately wrong model: compiled from a neighbouring formula.
  REQUIRE(test::run_cli({"generate", "a-since-b", "--split", "train:6-9:40", "--split", "test:12-14:30:border", "--out",
                         dir.string()}).status == 0);
  REQUIRE(test::run_cli({"compile", "--formula", "a S (b & Y a)", "--alphabet", "abc", "-o", model.string()}).status == 0);
  std::string words;
  for (const char* f : {"train.tsv", "test.tsv"}) words += io::read_file((dir / f).string());
  const auto run = test::run_cli({"run", "--model", model.string()}, words);  // reads word<TAB>label lines back
  REQUIRE(run.status == 0);
  io::write_file_atomically(preds.string(), run.out);
  const auto by_file = test::run_cli({"score", dir.string(), "--predictions", preds.string(), "--json"});
  const auto by_model = test::run_cli({"score", dir.string(), "--model", model.string(), "--json"});
  REQUIRE(by_model.status == 0);
  CHECK(by_model.out == by_file.out);
  const auto j = nlohmann::json::parse(by_model.out);
  CHECK(j["overall"]["accuracy"].get<double>() < 1.0);  // the neighbouring formula is wrong somewhere
  CHECK(j["overall"]["accuracy"].get<double>() > 0.0);
  // The exact model scores 100%.
  REQUIRE(test::run_cli({"compile", "a-since-b", "-o", model.string()}).status == 0);
  const auto exact = nlohmann::json::parse(test::run_cli({"score", dir.string(), "--model", model.string(), "--json"}).out);
  CHECK(exact["overall"]["accuracy"] == 1.0);
  const fs::path svg = test::temp_path("score.svg");
  CHECK(test::run_cli({"score", dir.string(), "--model", model.string(), "--svg", svg.string()}).status == 0);
  CHECK(io::read_file(svg.string()).find("<svg") != std::string::npos);
  fs::remove_all(dir);
  for (const fs::path& p : {model, preds, svg}) fs::remove(p);
}

TEST_CASE("score: split names come from file names", "[score]") {
  CHECK(score::split_name("train.tsv") == "train");
  CHECK(score::split_name("dir/04.04.SF.0.0.6_TestLA.txt") == "TestLA");
  CHECK(score::split_name("x_TestSR.txt") == "TestSR");
}

TEST_CASE("classify and run read a generated TSV back, with --compare-labels", "[score][cli]") {
  const auto corpus = test::run_cli({"generate", "third-last-a", "--lengths", "5-12", "--per-length", "10"});
  REQUIRE(corpus.status == 0);
  const auto same = test::run_cli({"classify", "third-last-a", "--compare-labels"}, corpus.out);
  CHECK(same.status == 0);
  CHECK(same.out == corpus.out);  // the compiled transformer reproduces every label
  CHECK(same.err == "softhat: labels: 80 of 80 agree (100.00%)\n");
  // One label flipped at a known line: exit 1, named.
  std::vector<std::string> lines = test::lines_of(corpus.out);
  lines[6] = flip(lines[6]);
  std::string altered;
  for (const auto& l : lines) altered += l + "\n";
  const fs::path model = test::temp_path("readback.safetensors");
  REQUIRE(test::run_cli({"compile", "third-last-a", "-o", model.string()}).status == 0);
  const auto differs = test::run_cli({"run", "--model", model.string(), "--compare-labels"}, altered);
  CHECK(differs.status == 1);
  CHECK(differs.err == "softhat: labels: 79 of 80 agree (98.75%); first difference: line 7\n");
  CHECK(differs.out == corpus.out);
  fs::remove(model);
}
