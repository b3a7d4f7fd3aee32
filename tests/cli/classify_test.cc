// softhat classify/compile/verify/analyze on the command line: verdicts equal
// the evaluator's, bad lines stay in place, a 10 MB line works, exit codes.
#include <catch2/catch.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli/cli_helpers.h"
#include "io/file_util.h"
#include "lang/catalog.h"
#include "logic/eval.h"
#include "util/random.h"
#include "words/words.h"
#include "temp_path.h"

using namespace softhat;

namespace {
using Result = softhat::test::CliResult;
Result run(const std::vector<std::string>& args, const std::string& input = "") { return softhat::test::run_cli(args, input); }
constexpr auto lines = softhat::test::lines_of;
}  // namespace

TEST_CASE("classify: verdicts equal the evaluator's, bad input stays in place", "[cli][classify]") {
  const lang::Catalog catalog = lang::Catalog::builtin();
  const logic::Formula f = *catalog.find("a-since-b").formula;
  std::mt19937_64 rng = derived_rng(41, "classify");
  const std::string big = words::random_word(rng, "abc", 10 * 1024 * 1024, 0);  // a 10 MB line
  const std::vector<std::string> words = {"ba", "bca", "", "babcaaab", big, "cbaab"};
  std::string input;
  for (const std::string& w : words) input += w + "\r\n";  // CRLF throughout
  input += "abxc\n\nb";                                     // a bad symbol, an empty line, no final newline
  const Result r = run({"classify", "a-since-b"}, input);
  CHECK(r.status == 2);
  const std::vector<std::string> out = lines(r.out);
  REQUIRE(out.size() == words.size() + 3);
  for (std::size_t k = 0; k < words.size(); ++k) {
    INFO("line " << k + 1);
    CHECK(out[k] == words[k] + (logic::accepts(f, words[k]) ? "\tTRUE" : "\tFALSE"));
  }
  CHECK(out[words.size()] == "abxc\tERROR\tsymbol 'x' at 3 is not in the alphabet {a,b,c}");
  CHECK(out[words.size() + 1] == "\tFALSE");
  CHECK(out[words.size() + 2] == "b\tFALSE");
  CHECK(r.err == "softhat: 1 of 9 lines had errors (first: line 7)\n");
}

TEST_CASE("classify: modes and formulas typed on the command line", "[cli][classify]") {
  const std::string input = "ba\nbab\nbaaac\n";
  const Result soft = run({"classify", "--formula", "a S b", "--alphabet", "abc"}, input);
  const Result hard = run({"classify", "--formula", "a S b", "--alphabet", "abc", "--mode", "hard"}, input);
  const Result unbounded = run({"classify", "--formula", "a S b", "--alphabet", "abc", "--pe", "unbounded"}, input);
  const Result flt = run({"classify", "--formula", "a S b", "--alphabet", "abc", "--precision", "float"}, input);
  CHECK(soft.out == "ba\tTRUE\nbab\tTRUE\nbaaac\tTRUE\n");
  CHECK(hard.out == soft.out);
  CHECK(unbounded.out == soft.out);
  CHECK(flt.out == soft.out);
  const Result fixed = run({"classify", "--formula", "a S b", "--alphabet", "abc", "--beta", "1"}, input);
  CHECK(fixed.status == 0);
  CHECK(fixed.out != soft.out);  // beta = 1 is far too small for the since head
  const Result json = run({"classify", "a-since-b", "--format", "jsonl"}, "ba\n");
  const auto rec = nlohmann::json::parse(lines(json.out).at(0));
  CHECK(rec["accepted"] == true);
  CHECK(rec["output_margin"] == 0.5);
  CHECK(rec["beta"] == 9.0);  // 3 * (n+1) at n = 2
  CHECK(rec["min_target_mass"].get<double>() > 0.9);
  const Result counting = run({"classify", "majority"}, "ab\naab\n\nbba\n");
  CHECK(counting.status == 0);
  CHECK(counting.out == "ab\tFALSE\naab\tTRUE\n\tFALSE\nbba\tFALSE\n");
  const Result parity = run({"classify", "parity"}, "1\n");
  CHECK(parity.status == 2);
  // Defined by its automaton, which is not star-free: refused with a witness.
  CHECK(parity.err.rfind("softhat: language 'parity': the language is not star-free: u = \"1\"", 0) == 0);
}

TEST_CASE("compile, run and analyze: the file reproduces classify", "[cli][classify]") {
  const auto path = softhat::test::temp_path("compile.safetensors");
  const Result c = run({"compile", "c-flanked", "-o", path.string()});
  CHECK(c.status == 0);
  CHECK(c.err.find("wrote ") != std::string::npos);
  std::string input;
  words::for_each_word("abc", 6, [&](const std::string& w) {
    input += w + "\n";
    return true;
  });
  const Result classify = run({"classify", "c-flanked"}, input);
  const Result from_file = run({"run", "--model", path.string()}, input);
  CHECK(classify.status == 0);
  CHECK(from_file.out == classify.out);
  std::filesystem::remove(path);
  const Result analyze = run({"analyze", "c-flanked"});
  CHECK(analyze.status == 0);
  CHECK(analyze.out.find("fragment     LTL") != std::string::npos);
  CHECK(analyze.out.find("head 0 since") != std::string::npos);
  CHECK(analyze.out.find("until") != std::string::npos);
  CHECK(analyze.out.find("beta(n)      3*(n+1)") != std::string::npos);
  CHECK(run({"compile", "c-flanked", "-o", "/nonexistent/dir/m.safetensors"}).status == 2);
}

TEST_CASE("verify: the catalogue agrees, a wrong oracle and a tiny beta are caught", "[cli][verify]") {
  const auto json_path = softhat::test::temp_path("verify.json");
  const Result all = run({"verify", "--all", "--lengths", "100,1000", "--samples", "30", "--json", json_path.string()});
  INFO(all.out);
  CHECK(all.status == 0);
  CHECK(all.out.find(" 0 disagreements, 0 languages disagree") != std::string::npos);
  CHECK(all.out.find("skipped parity: the language is not star-free: u = \"1\"") != std::string::npos);
  CHECK(all.out.find("majority") != std::string::npos);  // counting languages compile too
  const auto json = nlohmann::json::parse(io::read_file(json_path.string()));
  CHECK(json["languages"].size() == lang::Catalog::builtin().languages().size());
  std::filesystem::remove(json_path);
  const Result wrong = run({"verify", "--formula", "a S b", "--alphabet", "abc", "--regex", "[abc]*ba*"});
  CHECK(wrong.status == 1);
  CHECK(wrong.out.find("shortest \"b\" (transformer=FALSE, formula=FALSE, regex=TRUE, dfa=FALSE)") != std::string::npos);
  const Result tiny = run({"verify", "a-since-b", "--beta", "1", "--lengths", "1000", "--samples", "10"});
  CHECK(tiny.status == 1);
  const Result unbounded = run({"verify", "a-since-b", "c-flanked", "--pe", "unbounded", "--lengths", "10000",
                                "--samples", "5"});
  CHECK(unbounded.status == 0);
}
