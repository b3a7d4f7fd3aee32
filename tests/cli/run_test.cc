// softhat run --model: verdicts from a model file alone; bad lines are
// reported in place and the stream goes on; corrupt files exit 2.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli/cli_helpers.h"
#include "io/model_file.h"
#include "model/forward.h"
#include "model/random_model.h"
#include "util/random.h"
#include "temp_path.h"

using namespace softhat;

namespace {
using Result = softhat::test::CliResult;
Result run(const std::vector<std::string>& args, const std::string& input = "") { return softhat::test::run_cli(args, input); }

struct TempModel {
  std::filesystem::path path;
  model::Transformer model;
  TempModel() {
    std::mt19937_64 rng = derived_rng(3, "cli-run");
    model = model::random_model(rng, {"ab", 2, 2, 6});
    path = softhat::test::temp_path("run.safetensors");
    io::save_model(model, path.string());
  }
  ~TempModel() { std::filesystem::remove(path); }
};

constexpr auto lines = softhat::test::lines_of;
}  // namespace

TEST_CASE("run: TSV verdicts in input order, bad lines in place, exit 2 at the end", "[cli][run]") {
  TempModel m;
  const model::Engine engine(m.model);
  auto verdict = [&](const std::string& w) { return w + (engine.run(w).accepted ? "\tTRUE" : "\tFALSE"); };
  const std::string input = std::string("ab\nabc\n\r\nba\r\n\nbbbbab\na") + '\0' + "b\n";
  const Result r = run({"run", "--model", m.path.string()}, input);
  CHECK(r.status == 2);
  const std::vector<std::string> expected = {verdict("ab"),
                                             "abc\tERROR\tsymbol 'c' at 3 is not in the alphabet {a,b}",
                                             verdict(""),
                                             verdict("ba"),
                                             verdict(""),
                                             verdict("bbbbab"),
                                             std::string("a") + '\0' + "b\tERROR\tsymbol byte 0x00 at 2 is not in the "
                                                                       "alphabet {a,b}"};
  CHECK(lines(r.out) == expected);
  CHECK(r.err == "softhat: 2 of 7 lines had errors (first: line 2)\n");
  // A clean stream exits 0; a final line without a newline still counts.
  const Result ok = run({"run", "--model", m.path.string()}, "ab\nba");
  CHECK(ok.status == 0);
  CHECK(lines(ok.out) == std::vector<std::string>{verdict("ab"), verdict("ba")});
}

TEST_CASE("run: JSONL carries y, margins and the state", "[cli][run]") {
  TempModel m;
  const Result r = run({"run", "--model", m.path.string(), "--format", "jsonl", "--emit-state"}, "abba\nx\n");
  CHECK(r.status == 2);
  const auto out = lines(r.out);
  REQUIRE(out.size() == 2);
  const auto rec = nlohmann::json::parse(out[0]);
  model::RunOptions o;
  o.trace = true;
  const model::RunResult direct = model::Engine(m.model).run("abba", o);
  CHECK(rec["word"] == "abba");
  CHECK(rec["accepted"] == direct.accepted);
  CHECK(rec["y"].get<double>() == direct.y);
  CHECK(rec["output_margin"].get<double>() == direct.output_margin);
  CHECK(rec["state"].size() == static_cast<std::size_t>(m.model.config.d_model));
  CHECK(nlohmann::json::parse(out[1]) ==
        nlohmann::json({{"word", "x"}, {"error", "symbol 'x' at 1 is not in the alphabet {a,b}"}}));
}

TEST_CASE("run: missing or corrupt model files exit 2 with the reason", "[cli][run]") {
  const Result missing = run({"run", "--model", "/nonexistent/m.safetensors"}, "ab\n");
  CHECK(missing.status == 2);
  CHECK(missing.err.find("cannot read /nonexistent/m.safetensors") != std::string::npos);
  const auto path = softhat::test::temp_path("corrupt.safetensors");
  std::ofstream(path) << "garbage!garbage!";
  const Result corrupt = run({"run", "--model", path.string()}, "ab\n");
  CHECK(corrupt.status == 2);
  CHECK(corrupt.out.empty());
  CHECK(corrupt.err.find("softhat: " + path.string() + ": ") == 0);
  std::filesystem::remove(path);
  CHECK(run({"run", "--model", "x", "--mode", "fuzzy"}, "").status == 2);
}

TEST_CASE("run: --beta overrides the model's schedule as classify's does", "[cli][run]") {
  // docs/compiler.md, "Why not a fixed temperature": a-since-b at a fixed
  // beta of 30 gets every word right up to n = 42 and misclassifies the
  // worst words of length 43, b^41 c x and c^41 b x.
  const auto path = softhat::test::temp_path("a-since-b.safetensors");
  REQUIRE(run({"compile", "a-since-b", "-o", path.string()}).status == 0);
  const std::string words = std::string(41, 'b') + "ca\n" + std::string(41, 'c') + "ba\n" + std::string(40, 'b') +
                            "ca\n" + std::string(40, 'c') + "ba\n";
  const Result scheduled = run({"run", "--model", path.string()}, words);
  const Result fixed = run({"run", "--model", path.string(), "--beta", "30"}, words);
  CHECK(scheduled.status == 0);
  CHECK(fixed.status == 0);
  auto verdicts = [](const Result& r) {
    std::vector<std::string> v;
    for (const std::string& l : lines(r.out)) v.push_back(l.substr(l.find('\t') + 1));
    return v;
  };
  CHECK(verdicts(scheduled) == std::vector<std::string>{"FALSE", "TRUE", "FALSE", "TRUE"});
  CHECK(verdicts(fixed) == std::vector<std::string>{"TRUE", "FALSE", "FALSE", "TRUE"});
  // The same bytes as classify with the same override, margins included.
  CHECK(run({"run", "--model", path.string(), "--beta", "30", "--format", "jsonl"}, words).out ==
        run({"classify", "a-since-b", "--beta", "30", "--format", "jsonl"}, words).out);
  const Result bad = run({"run", "--model", path.string(), "--beta", "3*(n+"}, words);
  CHECK(bad.status == 2);
  CHECK(bad.out.empty());
  CHECK(bad.err.find("--beta '3*(n+': expected a number at 2") != std::string::npos);
  std::filesystem::remove(path);
}

TEST_CASE("run: --threads splits the batches and changes no byte of the output", "[cli][run]") {
  TempModel m;
  // About 40,000 symbols: batches big enough to be split, with bad lines,
  // labels (some wrong) and a header.
  std::mt19937_64 rng = derived_rng(4, "cli-run-threads");
  std::string input = "word\tlabel\n";
  for (int i = 0; i < 1500; ++i) {
    std::string w;
    for (std::uint64_t k = uniform_int(rng, 0, 50); k > 0; --k) w += "ab"[rng() & 1];
    if (i % 97 == 0) w += "c";
    if (i % 5 == 0) w += (rng() & 1) ? "\tTRUE" : "\tFALSE";
    input += w + "\n";
  }
  for (const std::vector<std::string>& extra :
       {std::vector<std::string>{}, std::vector<std::string>{"--format", "jsonl", "--emit-state"},
        std::vector<std::string>{"--compare-labels"}}) {
    std::vector<std::string> args = {"run", "--model", m.path.string()};
    args.insert(args.end(), extra.begin(), extra.end());
    std::vector<std::string> one_args = args, many_args = args;
    one_args.insert(one_args.end(), {"--threads", "1"});
    many_args.insert(many_args.end(), {"--threads", "3"});
    const Result one = run(one_args, input), many = run(many_args, input);
    CHECK(one.status == 2);  // the bad lines
    CHECK(many.status == one.status);
    CHECK(many.out == one.out);
    CHECK(many.err == one.err);
    CHECK(lines(one.out).size() == 1500);
  }
  CHECK(run({"run", "--model", m.path.string(), "--threads", "0"}, "ab\n").status == 2);
}

TEST_CASE("S-RASP streams: --threads changes no byte (interpreter, compiled softmax, exact AHAT)", "[cli][run][rasp]") {
  const std::string compact = SOFTHAT_SOURCE_DIR "/examples/srasp/compact.srasp";
  const std::string dyck2 = SOFTHAT_SOURCE_DIR "/examples/srasp/dyck2.srasp";
  // Batches of over 8,192 symbols (a word's bytes and one), so they are
  // split; bad symbols and labels included. The exact runs take short words.
  auto words = [](const std::string& symbols, std::size_t count, std::uint64_t longest, std::uint64_t seed) {
    std::mt19937_64 rng = derived_rng(seed, "cli-rasp-threads");
    std::string input;
    for (std::size_t i = 0; i < count; ++i) {
      std::string w;
      for (std::uint64_t k = uniform_int(rng, 1, longest); k > 0; --k) w += symbols[rng() % symbols.size()];
      if (i % 101 == 0) w += "z";
      if (i % 7 == 0) w += (rng() & 1) ? "\tTRUE" : "\tFALSE";
      input += w + "\n";
    }
    return input;
  };
  const std::string abc = words("abc", 2000, 12, 1), brackets = words("()[]", 2000, 12, 2);
  const std::string tiny = words("abc", 6000, 2, 3);
  struct Case {
    std::vector<std::string> args;
    const std::string* input;
  };
  const std::vector<Case> cases = {
      {{"rasp", "run", compact}, &abc},
      {{"transduce", "--program", compact}, &abc},
      {{"transduce", "--program", compact, "--mode", "hard", "--format", "jsonl"}, &tiny},
      {{"classify", "--program", dyck2}, &brackets},
      {{"classify", "--program", dyck2, "--mode", "softmax", "--compare-labels"}, &brackets},
  };
  for (const Case& c : cases) {
    INFO(c.args[0] << " " << c.args[1] << " " << c.args.back());
    std::vector<std::string> one_args = c.args, many_args = c.args;
    one_args.insert(one_args.end(), {"--threads", "1"});
    many_args.insert(many_args.end(), {"--threads", "3"});
    const Result one = run(one_args, *c.input), many = run(many_args, *c.input);
    CHECK((one.status == 1 || one.status == 2));  // the bad lines (or a wrong label)
    CHECK(many.status == one.status);
    CHECK(many.out == one.out);
    CHECK(many.err == one.err);
    CHECK(lines(one.out).size() == lines(*c.input).size());
  }
}
