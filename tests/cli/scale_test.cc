// verify --att DIR --mlregtest-splits: one JSONL row per language, the same
// rows for any thread count and any sharding, and a run stopped partway (rows
// written, a torn last line) resumes without losing or repeating a language.
#include <catch2/catch.hpp>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "cli/cli_helpers.h"
#include "io/file_util.h"
#include "temp_path.h"

using namespace softhat;

namespace {

namespace fs = std::filesystem;

// Four small star-free automata and one that is not (a cycle of length 2).
fs::path sample_dir() {
  const fs::path dir = test::temp_path("scale-att");
  fs::remove_all(dir);
  fs::create_directories(dir);
  for (const char* name : {"04.03.TSL.2.1.9", "04.04.SL.2.1.2", "04.04.SF.0.0.6", "16.16.SL.2.1.3", "04.04.Zp.2.1.1"}) {
    fs::copy_file(fs::path(SOFTHAT_MLREGTEST_DIR) / (std::string(name) + ".att"), dir / (std::string(name) + ".att"));
  }
  return dir;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t end = text.find('\n', at);
    out.push_back(text.substr(at, end - at));
    at = end == std::string::npos ? text.size() : end + 1;
  }
  return out;
}

test::CliResult scale(const fs::path& dir, std::vector<std::string> more) {
  std::vector<std::string> args = {"verify", "--att", dir.string(), "--mlregtest-splits", "small"};
  args.insert(args.end(), more.begin(), more.end());
  return test::run_cli(args);
}

}  // namespace

TEST_CASE("verify --mlregtest-splits: a row per language, independent of threads and shards", "[cli][scale]") {
  const fs::path dir = sample_dir();
  const auto one = scale(dir, {"--threads", "1"});
  REQUIRE(one.status == 0);
  const std::vector<std::string> rows = lines_of(one.out);
  REQUIRE(rows.size() == 5);
  std::set<std::string> names;
  for (const std::string& line : rows) {
    const nlohmann::json row = nlohmann::json::parse(line);
    names.insert(row["language"].get<std::string>());
    if (row["language"] == "04.04.Zp.2.1.1") {
      CHECK(row["status"] == "not-star-free");
      continue;
    }
    CHECK(row["status"] == "agree");
    CHECK(row["splits"].size() == 6);
    CHECK(row["words"] == row["agreed"]);
    CHECK(row["words"].get<int>() >= 5900);  // six splits of 1,000 (a few border words may be short)
    CHECK(row["model"]["nonzero_weights"].get<int>() > 0);
  }
  CHECK(names.size() == 5);
  CHECK(scale(dir, {"--threads", "2"}).out == one.out);
  std::string sharded;
  for (const char* k : {"0/2", "1/2"}) {
    const auto part = scale(dir, {"--threads", "2", "--shard", k});
    REQUIRE(part.status == 0);
    sharded += part.out;
  }
  CHECK(sharded == one.out);
}

TEST_CASE("verify --mlregtest-splits --out: a stopped run resumes, losing and repeating no language", "[cli][scale]") {
  const fs::path dir = sample_dir();
  const std::string whole = test::run_cli({"verify", "--att", dir.string(), "--mlregtest-splits", "small"}).out;
  const std::vector<std::string> rows = lines_of(whole);
  REQUIRE(rows.size() == 5);
  const std::string out = test::temp_path("scale-rows.jsonl").string();
  fs::remove(out);

  // A first run stopped after two languages, in the middle of writing the third.
  {
    std::ofstream f(out, std::ios::binary);
    f << rows[0] << "\n" << rows[1] << "\n" << rows[2].substr(0, rows[2].size() / 2);
  }
  const auto resumed = scale(dir, {"--out", out});
  REQUIRE(resumed.status == 0);
  CHECK(resumed.out.find("(2 already in") != std::string::npos);
  CHECK(io::read_file(out) == whole);  // every row once, in order, the torn line replaced

  // A run over a finished file runs nothing and changes nothing.
  const auto again = scale(dir, {"--out", out});
  REQUIRE(again.status == 0);
  CHECK(again.out.find("(5 already in") != std::string::npos);
  CHECK(again.err.find("at this rate") == std::string::npos);
  CHECK(io::read_file(out) == whole);

  // Rows of another seed are not this run's: refused, the file untouched.
  const auto other = scale(dir, {"--out", out, "--seed", "7"});
  CHECK(other.status == 2);
  CHECK(other.err.find("--seed") != std::string::npos);
  CHECK(io::read_file(out) == whole);

  // Another mode is another run: refused, the file untouched.
  const auto hard = scale(dir, {"--out", out, "--mode", "hard"});
  CHECK(hard.status == 2);
  CHECK(hard.err.find("mode") != std::string::npos);
  CHECK(io::read_file(out) == whole);

  // Blank lines are skipped; the rows around them count.
  {
    std::ofstream f(out, std::ios::binary);
    f << rows[0] << "\n\n" << rows[1] << "\n";
  }
  const auto blank = scale(dir, {"--out", out});
  REQUIRE(blank.status == 0);
  CHECK(blank.out.find("(2 already in") != std::string::npos);

  // A damaged line is refused with its line number, and nothing is cut, not
  // even a torn last line after it.
  const std::string damaged = rows[0] + "\nnot json\n" + rows[2] + "\n" + rows[3].substr(0, 20);
  {
    std::ofstream f(out, std::ios::binary);
    f << damaged;
  }
  const auto bad = scale(dir, {"--out", out});
  CHECK(bad.status == 2);
  CHECK(bad.err.find(":2:") != std::string::npos);
  CHECK(io::read_file(out) == damaged);

  // A file that is not a results file at all (no newline, not the start of a
  // row) is refused and left as it was.
  {
    std::ofstream f(out, std::ios::binary);
    f << "some notes";
  }
  const auto notes = scale(dir, {"--out", out});
  CHECK(notes.status == 2);
  CHECK(notes.err.find(":1: not a row") != std::string::npos);
  CHECK(io::read_file(out) == "some notes");
  fs::remove(out);
}

TEST_CASE("verify --mlregtest-splits: a temperature too high disagrees, exit 1, the first disagreement named",
          "[cli][scale]") {
  const fs::path dir = sample_dir();
  const auto r = scale(dir, {"--beta", "0.001"});  // near-uniform attention: the heads cannot pick their targets
  CHECK(r.status == 1);
  std::size_t disagreeing = 0;
  for (const std::string& line : lines_of(r.out)) {
    const nlohmann::json row = nlohmann::json::parse(line);
    if (row["status"] != "disagree") continue;
    ++disagreeing;
    CHECK(row["agreed"].get<int>() < row["words"].get<int>());
    REQUIRE(row.contains("first_disagreement"));
    const nlohmann::json& first = row["first_disagreement"];
    CHECK(first["label"] != first["accepted"]);
    CHECK(first["word"].get<std::string>().size() >= 20);  // MLRegTest's words have lengths 20-50
  }
  CHECK(disagreeing > 0);
  CHECK(r.err.find(", " + std::to_string(disagreeing) + " disagree,") != std::string::npos);  // the summary
}

TEST_CASE("verify --mlregtest-splits: flags that choose other words are refused", "[cli][scale]") {
  const fs::path dir = sample_dir();
  for (const std::vector<std::string>& more :
       {std::vector<std::string>{"--max-len", "3"}, {"--samples", "3"}, {"--lengths", "20"}, {"--json", "-"}}) {
    const auto r = scale(dir, more);
    CHECK(r.status == 2);
    CHECK(r.err.find("--mlregtest-splits") != std::string::npos);
  }
  const auto r = test::run_cli({"verify", "a-since-b", "--out", "x.jsonl"});
  CHECK(r.status == 2);
}

TEST_CASE("verify --mlregtest-splits --float32: the claim checked per language, the splits run in float32", "[cli][scale][float32]") {
  const fs::path dir = sample_dir();
  const auto r = scale(dir, {"--float32", "--threads", "2"});
  REQUIRE(r.status == 0);
  const std::vector<std::string> rows = lines_of(r.out);
  REQUIRE(rows.size() == 5);
  for (const std::string& line : rows) {
    const nlohmann::json row = nlohmann::json::parse(line);
    INFO(row["language"]);
    CHECK(row["precision"] == "float32-where-claimed");
    if (row["status"] == "not-star-free") continue;
    CHECK(row["status"] == "agree");
    CHECK(row["float32"]["claimed"] == true);
    CHECK(row["float32"]["max_length"] == 128);
    CHECK(row["float32"]["words"].get<int>() > 0);
    CHECK(row["float32"]["min_margin"].get<double>() >= 8 * row["float32"]["max_deviation"].get<double>());
    CHECK(row["ran_in"] == "float");
    CHECK(row["words"] == row["agreed"]);
  }
  CHECK(scale(dir, {"--float32", "--threads", "1"}).out == r.out);

  // A results file made in double is not resumed in float32, and is left as it was.
  const fs::path out = test::temp_path("scale-float32.jsonl");
  fs::remove(out);
  REQUIRE(scale(dir, {"--shard", "0/5", "--out", out.string()}).status == 0);
  const std::string before = io::read_file(out.string());
  const auto refused = scale(dir, {"--float32", "--out", out.string()});
  CHECK(refused.status == 2);
  CHECK_THAT(refused.err, Catch::Contains("was made with precision \"double\", this run has \"float32-where-claimed\""));
  CHECK(io::read_file(out.string()) == before);
  fs::remove(out);

  CHECK(scale(dir, {"--float32", "--precision", "float"}).status == 2);
  CHECK(scale(dir, {"--float32", "--mode", "hard"}).status == 2);
  CHECK(test::run_cli({"verify", "contains-ab", "--float32"}).status == 2);
  fs::remove_all(dir);
}

TEST_CASE("verify --mlregtest-splits: a malformed .att file is an error row, and the other languages still run",
          "[cli][scale]") {
  const fs::path dir = sample_dir();
  const std::vector<std::string> good = lines_of(scale(dir, {}).out);
  REQUIRE(good.size() == 5);
  // Sorted by name it falls among the good ones (after 04.*, before 16.*).
  const fs::path bad = dir / "10.bad.att";
  {
    std::ofstream f(bad, std::ios::binary);
    f << "0 1 a a\n1 two b b\n1\n";  // line 2: a state that is not a number
  }
  const auto r = scale(dir, {"--threads", "2"});
  CHECK(r.status == 2);  // a language that could not be checked
  const std::vector<std::string> rows = lines_of(r.out);
  REQUIRE(rows.size() == 6);
  std::vector<std::string> others;
  for (const std::string& line : rows) {
    const nlohmann::json row = nlohmann::json::parse(line);
    if (row["language"] != "10.bad") {
      others.push_back(line);
      continue;
    }
    CHECK(row["status"] == "error");
    CHECK_THAT(row["message"].get<std::string>(), Catch::Contains("10.bad.att") && Catch::Contains(":2"));
    CHECK(!row.contains("words"));
  }
  CHECK(others == good);  // the same rows as without the bad file, in the same order
  CHECK(lines_of(r.out)[4].find("\"10.bad\"") != std::string::npos);
  CHECK_THAT(r.err, Catch::Contains("4 agree, 0 disagree, 1 not star-free, 1 errors"));

  // With --out the error row is kept; mending the file and removing its row reruns that language alone.
  const fs::path out = test::temp_path("scale-bad.jsonl");
  fs::remove(out);
  CHECK(scale(dir, {"--out", out.string()}).status == 2);
  CHECK(io::read_file(out.string()) == r.out);
  {
    std::ofstream f(bad, std::ios::binary);
    f << "0 1 a a\n1 1 b b\n1\n";
  }
  std::string kept;
  for (const std::string& line : rows) {
    if (line.find("\"10.bad\"") == std::string::npos) kept += line + "\n";
  }
  {
    std::ofstream f(out, std::ios::binary);
    f << kept;
  }
  const auto mended = scale(dir, {"--out", out.string()});
  CHECK(mended.status == 0);
  CHECK(mended.out.find("(5 already in") != std::string::npos);
  const std::vector<std::string> after = lines_of(io::read_file(out.string()));
  REQUIRE(after.size() == 6);
  const nlohmann::json last = nlohmann::json::parse(after.back());
  CHECK(last["language"] == "10.bad");
  CHECK(last["status"] == "agree");
  fs::remove(out);
  fs::remove_all(dir);
}

TEST_CASE("verify --mlregtest-splits --out: a FIFO or device gets the rows and is not read back", "[cli][scale]") {
  // --out /dev/stdout (or a named pipe) holds no earlier rows: reading it to
  // resume once waited forever on its own output. The rows are only written,
  // and the node stays what it was.
  const fs::path dir = sample_dir();
  const std::string whole = scale(dir, {}).out;
  const fs::path fifo = test::temp_path("scale-rows.fifo");
  fs::remove(fifo);
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  const int rd = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);  // a reader, so the command's open does not wait
  REQUIRE(rd >= 0);
  const auto r = scale(dir, {"--out", fifo.string()});
  std::string got;
  char buf[4096];
  for (ssize_t k; (k = ::read(rd, buf, sizeof buf)) > 0;) got.append(buf, static_cast<std::size_t>(k));
  ::close(rd);
  CHECK(r.status == 0);
  CHECK(got == whole);
  CHECK(fs::is_fifo(fs::symlink_status(fifo)));
  const auto folder = scale(dir, {"--out", dir.string()});
  CHECK(folder.status == 2);
  CHECK(folder.err.find("is a folder, not a results file") != std::string::npos);
  fs::remove(fifo);
  fs::remove_all(dir);
}
