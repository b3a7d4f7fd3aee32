// Evaluating any model: verify --model against the compiled transformer's
// own report, --header written and read back, --json on stdout or to a file,
// and the progress line's text.
#include <catch2/catch.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "cli/cli_helpers.h"
#include "io/file_util.h"
#include "temp_path.h"
#include "util/progress.h"

using namespace softhat;
namespace fs = std::filesystem;

TEST_CASE("verify --model: the saved compiled model gives the compiled transformer's report", "[cli][verify]") {
  const fs::path model = test::temp_path("verify-model.safetensors");
  REQUIRE(test::run_cli({"compile", "a-since-b", "-o", model.string()}).status == 0);
  const std::vector<std::string> words = {"--exhaustive", "6", "--lengths", "20,40", "--per-length", "30"};
  std::vector<std::string> own = {"verify", "a-since-b", "--json"}, given = own;
  own.insert(own.end(), words.begin(), words.end());
  given.insert(given.end(), {"--model", model.string()});
  given.insert(given.end(), words.begin(), words.end());
  const auto a = test::run_cli(own), b = test::run_cli(given);
  REQUIRE(a.status == 0);
  REQUIRE(b.status == 0);
  const auto ja = nlohmann::json::parse(a.out), jb = nlohmann::json::parse(b.out);
  CHECK(jb["model"] == model.string());
  CHECK(!ja.contains("model"));
  // The same words, the same verdicts and the same margins: the file holds the weights.
  CHECK(ja["languages"] == jb["languages"]);
  fs::remove(model);
}

TEST_CASE("verify --model: a wrong model disagrees where the oracles say so, a foreign one is refused",
          "[cli][verify]") {
  const fs::path model = test::temp_path("verify-wrong.safetensors");
  REQUIRE(test::run_cli({"compile", "--formula", "a S (b & Y a)", "--alphabet", "abc", "-o", model.string()}).status == 0);
  const auto r = test::run_cli({"verify", "a-since-b", "--model", model.string(), "--exhaustive", "5", "--lengths",
                                "20", "--per-length", "20", "--json"});
  CHECK(r.status == 1);
  const auto j = nlohmann::json::parse(r.out);
  const auto& l = j["languages"][0];
  REQUIRE(l["disagreements"].get<int>() > 0);
  // The shortest disagreement is one: the wrong model and the language differ on it.
  const std::string word = l["shortest_disagreement"]["word"];
  const auto wrong = test::run_cli({"run", "--model", model.string()}, word + "\n");
  const auto right = test::run_cli({"classify", "a-since-b"}, word + "\n");
  CHECK(wrong.out != right.out);
  // Every shorter word agrees (exhaustive rows come first).
  std::size_t agreed = 0, words = 0;
  for (const auto& row : l["rows"]) {
    agreed += row["agreed"].get<std::size_t>();
    words += row["words"].get<std::size_t>();
  }
  CHECK(words - agreed == l["disagreements"].get<std::size_t>());

  const fs::path binary = test::temp_path("verify-binary.safetensors");
  REQUIRE(test::run_cli({"compile", "no-aa", "-o", binary.string()}).status == 0);
  const auto foreign = test::run_cli({"verify", "a-since-b", "--model", binary.string()});
  CHECK(foreign.status == 2);
  CHECK(foreign.err.find("lacks the symbol 'c' of language 'a-since-b'") != std::string::npos);
  const auto task = test::run_cli({"verify", "khop-2", "--model", model.string()});
  CHECK(task.status == 2);
  fs::remove(model);
  fs::remove(binary);
}

TEST_CASE("header: TSV output names its columns, and readers skip a header line", "[cli][stream]") {
  const std::string words = "ab\nba\nbab\nc\n";
  const auto plain = test::run_cli({"classify", "a-since-b"}, words);
  const auto with = test::run_cli({"classify", "a-since-b", "--header"}, words);
  REQUIRE(plain.status == 0);
  REQUIRE(with.status == 0);
  CHECK(with.out == "word\taccepted\n" + plain.out);
  // Read back: the header is not a word; every label agrees.
  const auto back = test::run_cli({"classify", "a-since-b", "--compare-labels"}, with.out);
  CHECK(back.status == 0);
  CHECK(back.out == plain.out);
  CHECK(back.err.find("labels: 4 of 4 agree") != std::string::npos);
  // jsonl has no header line.
  CHECK(test::run_cli({"classify", "a-since-b", "--header", "--format", "jsonl"}, words).out ==
        test::run_cli({"classify", "a-since-b", "--format", "jsonl"}, words).out);
  // Transducers name the output column.
  const auto t = test::run_cli({"transduce", "khop-2", "--header"}, "abab\n");
  CHECK(t.out.rfind("word\toutput\n", 0) == 0);
  // A word that happens to be spelled "word" is still a word (no label column: not a header).
  const auto w = test::run_cli({"classify", "--formula", "O w", "--alphabet", "word"}, "word\n");
  CHECK(w.out == "word\tTRUE\n");
}

TEST_CASE("header: score reads predictions with a header", "[cli][score]") {
  const fs::path dir = test::temp_path("header-corpus");
  fs::remove_all(dir);
  REQUIRE(test::run_cli({"generate", "no-aa", "--split", "train:4-6:18", "--out", dir.string()}).status == 0);
  const std::string corpus = io::read_file((dir / "train.tsv").string());
  const fs::path model = test::temp_path("header.safetensors");
  REQUIRE(test::run_cli({"compile", "no-aa", "-o", model.string()}).status == 0);
  const fs::path preds = test::temp_path("header-preds.tsv");
  io::write_file_atomically(preds.string(), test::run_cli({"run", "--model", model.string(), "--header"}, corpus).out);
  const auto s = test::run_cli({"score", dir.string(), "--predictions", preds.string(), "--json"});
  REQUIRE(s.status == 0);
  const auto j = nlohmann::json::parse(s.out);
  CHECK(j["overall"]["words"] == 18);
  CHECK(j["overall"]["accuracy"] == 1.0);
  fs::remove_all(dir);
  fs::remove(model);
  fs::remove(preds);
}

TEST_CASE("json: stdout alone, or FILE beside the table", "[cli][json]") {
  const auto table = test::run_cli({"list"});
  const auto json = test::run_cli({"list", "--json"});
  REQUIRE(json.status == 0);
  const auto doc = nlohmann::json::parse(json.out);  // the whole of stdout is one document
  CHECK(doc["command"] == "list");
  CHECK(doc["languages"].size() + 1 == test::lines_of(table.out).size());
  const fs::path file = test::temp_path("list.json");
  const auto both = test::run_cli({"list", "--json=" + file.string()});
  CHECK(both.out == table.out);
  CHECK(nlohmann::json::parse(io::read_file(file.string())) == doc);
  CHECK(test::run_cli({"list", "--json", "-"}).out == json.out);
  fs::remove(file);
  // check's JSON counts what its table counts.
  const auto c = nlohmann::json::parse(
      test::run_cli({"check", "no-aa", "--exhaustive", "4", "--lengths", "10", "--per-length", "7", "--json"}).out);
  CHECK(c["languages"][0]["rows"][0]["words"] == 31);  // every word of length 0..4 over {a,b}
  CHECK(c["languages"][0]["rows"][1]["words"] == 7);
  CHECK(c["ok"] == true);
}

TEST_CASE("progress: the line's text, and no line off a terminal", "[util][progress]") {
  CHECK(util::Progress::line("verify x", "words", 50, 100, 2.0) == "verify x: 50/100 words, 25 words/s, 2 s left");
  CHECK(util::Progress::line("run m", "lines", 1500, 0, 1.0) == "run m: 1500 lines, 1.5k lines/s");
  CHECK(util::Progress::line("g", "lengths", 1, 3601, 1.0) == "g: 1/3601 lengths, 1 lengths/s, 1 h 0 min left");
  // In-process runs write to string streams: the CLI gives them no progress line.
  const auto r = test::run_cli({"verify", "no-aa", "--exhaustive", "4", "--lengths", "10", "--per-length", "5"});
  CHECK(r.err.find("words/s") == std::string::npos);
  CHECK(r.out.find("words/s") == std::string::npos);
  util::Progress off;
  off.advance(5);
  CHECK(!off.enabled());
}
