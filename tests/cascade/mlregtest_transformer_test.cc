// Every star-free automaton of the MLRegTest sample compiles into a softmax
// transformer that agrees with the automaton: on every word up to length 6
// (4 letters), 3 (16 letters) and 2 (64 letters), on 1,000 random words of
// lengths 20-50 and on 1,000 near misses (one substitution, insertion or
// deletion away from a random word), in softmax at the schedule and in hard
// mode. The automaton is read by softhat's .att reader; the verdicts come from
// the weights alone.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "automata/dfa.h"
#include "cascade/derive.h"
#include "compile/acceptor.h"
#include "compile/compiler.h"
#include "model/forward.h"
#include "cascade/mlregtest_files.h"
#include "util/symbols.h"

using namespace softhat;

namespace {

std::vector<std::string> words_up_to(const std::string& alphabet, std::size_t max_len) {
  std::vector<std::string> out{""}, frontier{""};
  for (std::size_t len = 1; len <= max_len; ++len) {
    std::vector<std::string> next;
    for (const auto& w : frontier) {
      for (char c : alphabet) next.push_back(w + c);
    }
    out.insert(out.end(), next.begin(), next.end());
    frontier = std::move(next);
  }
  return out;
}

}  // namespace

TEST_CASE("mlregtest: every star-free sample automaton's transformer agrees with it, softmax and hard",
          "[cascade][mlregtest][slow]") {
  const std::vector<std::filesystem::path> files = mlregtest_files();
  if (files.empty()) return;
  int compiled = 0;
  std::size_t checked = 0;
  std::mt19937_64 rng(16);
  for (const auto& f : files) {
    std::ifstream in(f);
    std::stringstream text;
    text << in.rdbuf();
    const automata::Dfa dfa = automata::dfa_from_att(text.str(), automata::AttSource{f.filename().string()});
    cascade::Derived d;
    try {
      d = cascade::derive_formula(dfa);
    } catch (const cascade::NotStarFree&) {
      continue;
    }
    const compile::Compiled c = compile::compile_formula(d.formula, dfa.alphabet, compile::derived_options({}, d));
    const model::Engine engine(c.model);
    model::RunOptions hard;
    hard.mode = model::AttentionMode::kHard;
    const std::size_t k = dfa.alphabet.size();
    std::vector<std::string> words = words_up_to(dfa.alphabet, k <= 4 ? 6 : k <= 16 ? 3 : 2);
    std::uniform_int_distribution<std::size_t> len(20, 50), sym(0, k - 1);
    auto random_word = [&] {
      std::string w;
      for (std::size_t j = len(rng); j > 0; --j) w += dfa.alphabet[sym(rng)];
      return w;
    };
    for (int i = 0; i < 1000; ++i) words.push_back(random_word());
    for (int i = 0; i < 1000; ++i) {  // near misses
      std::string w = random_word();
      std::uniform_int_distribution<std::size_t> at(0, w.size() - 1);
      switch (i % 3) {
        case 0: w[at(rng)] = dfa.alphabet[sym(rng)]; break;
        case 1: w.insert(w.begin() + static_cast<std::ptrdiff_t>(at(rng)), dfa.alphabet[sym(rng)]); break;
        default: w.erase(w.begin() + static_cast<std::ptrdiff_t>(at(rng))); break;
      }
      words.push_back(w);
    }
    int wrong_soft = 0, wrong_hard = 0;
    std::string first;
    for (const std::string& w : words) {
      const bool expected = dfa.accepts(w);
      const model::RunResult soft = engine.run(w);
      if (soft.accepted != expected || soft.output_margin != 0.5) {
        if (!wrong_soft++) first = w;
      }
      if (engine.run(w, hard).accepted != expected) {
        if (!wrong_hard++ && first.empty()) first = w;
      }
    }
    INFO(f.filename().string() << ": " << c.plan.layers.size() << " layers, " << c.plan.heads() << " heads; first wrong \""
                               << sym::encode(first) << "\"");
    CHECK(wrong_soft == 0);
    CHECK(wrong_hard == 0);
    checked += words.size();
    ++compiled;
  }
  CHECK(compiled == 66);
  CHECK(checked > 66 * 4000);
}
