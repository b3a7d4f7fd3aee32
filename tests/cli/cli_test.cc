// The command line, driven in-process: exit statuses, messages, and the
// catalogue-wide check.
#include <catch2/catch.hpp>
#include <sstream>

#include "cli/cli_helpers.h"

namespace {
using Result = softhat::test::CliResult;
Result run(const std::vector<std::string>& args, const std::string& input = "") { return softhat::test::run_cli(args, input); }
}  // namespace

TEST_CASE("cli: check --all agrees on every catalogue language", "[cli]") {
  const Result r = run({"check", "--all", "--lengths", "100,1000", "--samples", "50"});
  INFO(r.out << r.err);
  CHECK(r.status == 0);
  CHECK(r.out.find(" 0 disagreements, 0 languages disagree") != std::string::npos);
  CHECK(r.out.find("dyck-1-depth-2") != std::string::npos);
}

TEST_CASE("cli: a wrong regex is caught with the shortest disagreeing word", "[cli]") {
  const Result r = run({"check", "--formula", "(b & Y a) | O(b & Y a)", "--alphabet", "ab", "--regex", "[ab]*ba[ab]*"});
  CHECK(r.status == 1);
  CHECK(r.out.find("DISAGREE command-line:") != std::string::npos);
  CHECK(r.out.find("shortest \"ab\" (formula=TRUE, regex=FALSE, dfa=TRUE)") != std::string::npos);
}

TEST_CASE("cli: --formula behaves like the catalogue entry", "[cli]") {
  const Result listed = run({"check", "contains-ab", "--samples", "20"});
  const Result typed = run({"check", "--formula", "(b & Y a) | O(b & Y a)", "--alphabet", "ab", "--regex",
                            "[ab]*ab[ab]*", "--samples", "20"});
  CHECK(listed.status == 0);
  CHECK(typed.status == 0);
  // Same word counts and acceptance counts row by row (the names differ).
  auto strip = [](std::string s) {
    s.erase(0, s.find('\n') + 1);
    return s.substr(s.find("formula"));
  };
  CHECK(strip(listed.out) == strip(typed.out));
}

TEST_CASE("cli: bad formulas give their message and exit status 2", "[cli]") {
  struct Row {
    const char* formula;
    const char* alphabet;
    const char* message;
  };
  const Row rows[] = {
      {"Y (a & )", "ab", "softhat: unexpected ')' at 7, expected a formula\n"},
      {"ab", "ab", "softhat: ab at 0: did you mean a & b?\n"},
      {"a | c", "ab", "softhat: symbol 'c' at 4 is not in the alphabet {a,b}\n"},
  };
  for (const Row& row : rows) {
    const Result r = run({"check", "--formula", row.formula, "--alphabet", row.alphabet, "--regex", "a"});
    INFO(row.formula);
    CHECK(r.status == 2);
    CHECK(r.out.empty());
    CHECK(r.err == std::string("softhat: command line: language 'command-line': formula: ") +
                       (row.message + 9));
  }
}

TEST_CASE("cli: usage errors exit 2, list and show work", "[cli]") {
  CHECK(run({}).status == 2);
  CHECK(run({"frobnicate"}).status == 2);
  CHECK(run({"check"}).status == 2);
  CHECK(run({"check", "no-such-language"}).err == "softhat: unknown language 'no-such-language': see `softhat list`\n");
  CHECK(run({"check", "--formula", "#a > #b", "--alphabet", "ab"}).err ==
        "softhat: language 'command-line' has only a formula: nothing to compare it with (give it a regex too)\n");
  // A regular formula alone is checked against its own minimal DFA.
  const Result alone = run({"check", "--formula", "a S b", "--alphabet", "abc", "--samples", "10"});
  CHECK(alone.status == 0);
  CHECK(alone.out.find("formula=dfa") != std::string::npos);
  CHECK(run({"check", "--all", "--max-len", "99"}).status == 2);
  const Result list = run({"list"});
  CHECK(list.status == 0);
  CHECK(list.out.find("contains-ab") != std::string::npos);
  const Result show = run({"show", "a-since-b"});
  CHECK(show.status == 0);
  CHECK(show.out.find("structure:   (S 'a' 'b')") != std::string::npos);
  CHECK(show.out.find("fragment:    past LTL") != std::string::npos);
  const Result help = run({"check", "--help"});
  CHECK(help.status == 0);
  CHECK(help.out.find("--max-len") != std::string::npos);
}
