// softhat simulate and transduce on the command line: tables, JSON, exit
// codes, model files without a language, tasks typed on the command line,
// and bad input.
#include <catch2/catch.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "cli/cli_helpers.h"
#include "io/file_util.h"
#include "task/khop.h"
#include "temp_path.h"

using namespace softhat;

namespace {
using Result = softhat::test::CliResult;
Result run(const std::vector<std::string>& args, const std::string& input = "") { return softhat::test::run_cli(args, input); }
constexpr auto lines = softhat::test::lines_of;

std::string temp_path(const std::string& name) {
  return softhat::test::temp_path("simulate-" + name).string();
}
}  // namespace

TEST_CASE("simulate: a language's table and JSON, exact gaps at exhaustive lengths", "[cli][simulate]") {
  const std::string json = temp_path("a-since-b.json");
  const Result r = run({"simulate", "a-since-b", "--lengths", "0-4,16", "--json", json});
  CHECK(r.status == 0);
  CHECK(r.err.empty());
  CHECK(r.out.find("a-since-b: 1 layers, 1 heads") == 0);
  const nlohmann::json all = nlohmann::json::parse(io::read_file(json));
  CHECK(all["ok"] == true);
  REQUIRE(all["reports"].size() == 1);
  const nlohmann::json& j = all["reports"][0];
  CHECK(j["ok"] == true);
  CHECK(j["gap_exponent"].get<double>() == Approx(-1.0).margin(0.1));
  REQUIRE(j["lengths"].size() == 6);
  const auto& n4 = j["lengths"][4];
  CHECK(n4["n"] == 4);
  CHECK(n4["words"] == 81);
  CHECK(n4["exhaustive"] == true);
  CHECK(n4["gap_is_upper_bound"] == false);
  CHECK(n4["gap"].get<double>() == Approx(0.2).epsilon(1e-15));
  CHECK(n4["agree_ahat"] == 81);
  CHECK(n4["ahat_oracle"] == 81);
  CHECK(n4["softmax_oracle"] == 81);
  CHECK(n4["max_state_diff"].get<double>() <= n4["bound"].get<double>());
  CHECK(j["lengths"][5]["gap_is_upper_bound"] == true);
  std::filesystem::remove(json);
}

TEST_CASE("simulate: a tiny beta disagrees at large n and exits 1", "[cli][simulate]") {
  const Result r = run({"simulate", "dyck-2", "--beta", "1", "--lengths", "120"});
  CHECK(r.status == 1);
  CHECK(r.out.find("first softmax/AHAT disagreement") != std::string::npos);
}

TEST_CASE("simulate: any model file, without a language", "[cli][simulate]") {
  const std::string model = temp_path("khop.safetensors");
  REQUIRE(run({"compile", "--task", "khop", "--hops", "2", "--alphabet-size", "3", "-o", model}).status == 0);
  const Result r = run({"simulate", "--model", model, "--lengths", "0-5,40"});
  CHECK(r.status == 0);
  const std::vector<std::string> out = lines(r.out);
  REQUIRE(out.size() >= 9);
  CHECK(out[7].find("all") != std::string::npos);   // n = 5: 243 words, exhaustive
  CHECK(out[8].find("some") != std::string::npos);  // n = 40: sampled
  CHECK(out[8].substr(out[8].size() - 2) == " -");    // no oracle
  CHECK(run({"simulate", "--model", model, "a-since-b"}).status == 2);
  std::filesystem::remove(model);
}

TEST_CASE("simulate: bad lengths are refused with the item named", "[cli][simulate]") {
  const Result r = run({"simulate", "a-since-b", "--lengths", "4,9-3"});
  CHECK(r.status == 2);
  CHECK(r.err == "softhat: empty range '9-3' in '4,9-3'\n");
  CHECK(run({"simulate", "a-since-b", "--lengths", "4,x"}).err ==
        "softhat: bad length 'x' in '4,x' (expected N or A-B, e.g. 0-12,16,1000)\n");
}

TEST_CASE("transduce: outputs in order, bad lines in place, languages refused", "[cli][transduce]") {
  const Result r = run({"transduce", "khop-2"}, "abacbabc\r\nabzc\n\nabcdabdcb");
  CHECK(r.status == 2);
  CHECK(lines(r.out) == std::vector<std::string>{"abacbabc\t~~~~b~ca",
                                                 "abzc\tERROR\tsymbol 'z' at 3 is not in the alphabet {a,b,c,d}",
                                                 "\t", "abcdabdcb\t~~~~~~b~a"});
  const Result typed = run({"transduce", "--task", "khop", "--k", "1", "--alphabet", "xyz"}, "xyzxy\n");
  CHECK(typed.status == 0);
  CHECK(typed.out == "xyzxy\t~~~yz\n");
  const Result lang = run({"transduce", "dyck-2"}, "()\n");
  CHECK(lang.status == 2);
  CHECK(lang.err == "softhat: 'dyck-2' is a language, not a transduction task: use `softhat classify dyck-2`\n");
  CHECK(run({"transduce", "--task", "khop"}, "ab\n").err == "softhat: --task needs --hops K\n");
}

TEST_CASE("verify and generate on a task: per-position agreement, targets from the oracle", "[cli][transduce]") {
  const Result v = run({"verify", "khop-4", "--lengths", "60", "--samples", "8"});
  CHECK(v.status == 0);
  CHECK(v.out.find("khop-4                 5L5H") != std::string::npos);
  const Result g = run({"generate", "khop-1", "--lengths", "7-8", "--per-length", "4"});
  CHECK(g.status == 0);
  const std::vector<std::string> out = lines(g.out);
  CHECK(out.size() == 8);
  for (const std::string& line : out) {
    const std::size_t tab = line.find('\t');
    REQUIRE(tab != std::string::npos);
    CHECK(line.substr(tab + 1) == task::khop(line.substr(0, tab), 1));
  }
}
