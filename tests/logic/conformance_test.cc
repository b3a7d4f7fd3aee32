// The shared conformance verdicts (../shared/conformance/formula-verdicts.tsv):
// any correct implementation of the formula-language contract reproduces
// every one of them.
#include <catch2/catch.hpp>
#include <fstream>
#include <string>
#include <vector>

#include "logic/eval.h"
#include "logic/parse.h"

using namespace softhat::logic;

namespace {
struct Verdict {
  std::string formula, alphabet, word;
  bool accepted;
  std::size_t line;
};

std::vector<Verdict> load_verdicts() {
  const std::string path = std::string(SOFTHAT_CONFORMANCE_DIR) + "/formula-verdicts.tsv";
  std::ifstream in(path);
  INFO("conformance data " << path
                           << " (configure with -DSOFTHAT_CONFORMANCE_DIR=... if shared/ lives elsewhere)");
  REQUIRE(in.good());
  std::vector<Verdict> rows;
  std::string line;
  std::size_t number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (number == 1 && line.rfind("# formula", 0) == 0) continue;  // header
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    std::vector<std::string> fields;
    std::size_t start = 0;
    for (std::size_t tab; (tab = line.find('\t', start)) != std::string::npos; start = tab + 1) {
      fields.push_back(line.substr(start, tab - start));
    }
    fields.push_back(line.substr(start));
    INFO("line " << number << ": " << line);
    REQUIRE(fields.size() == 4);
    REQUIRE((fields[3] == "TRUE" || fields[3] == "FALSE"));
    rows.push_back({fields[0], fields[1], fields[2], fields[3] == "TRUE", number});
  }
  return rows;
}
}  // namespace

TEST_CASE("conformance: the evaluator reproduces every shared verdict", "[logic][conformance]") {
  const std::vector<Verdict> rows = load_verdicts();
  REQUIRE(rows.size() > 1000);
  std::size_t agreed = 0;
  for (const Verdict& v : rows) {
    INFO("line " << v.line << ": " << v.formula << " over " << v.alphabet << " on \"" << v.word << "\"");
    Formula f;
    REQUIRE_NOTHROW(f = parse(v.formula, v.alphabet));
    CHECK(accepts(f, v.word) == v.accepted);
    agreed += accepts(f, v.word) == v.accepted;
  }
  CHECK(agreed == rows.size());
}
