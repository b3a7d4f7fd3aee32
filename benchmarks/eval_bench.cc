// Evaluator throughput against the RE2 oracle (the named baseline), in one
// run: words/second on seeded random words of several lengths, for a few
// catalogue languages. Prints a table; the ratio column is evaluator / RE2.
#include <fmt/format.h>

#include <chrono>
#include <string>
#include <vector>

#include "lang/catalog.h"
#include "logic/eval.h"
#include "util/random.h"
#include "words/words.h"

namespace {
template <typename F>
double words_per_second(const std::vector<std::string>& words, F&& accepts, std::size_t& sink) {
  const auto start = std::chrono::steady_clock::now();
  std::size_t rounds = 0;
  double elapsed = 0;
  do {
    for (const std::string& w : words) sink += accepts(w);
    ++rounds;
    elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  } while (elapsed < 0.3);
  return static_cast<double>(rounds * words.size()) / elapsed;
}
}  // namespace

int main() {
  using namespace softhat;
  const lang::Catalog catalog = lang::Catalog::builtin();
  std::size_t sink = 0;
  fmt::print("{:<18} {:>7} {:>16} {:>16} {:>8}\n", "language", "length", "evaluator w/s", "RE2 w/s",
             "ratio");
  for (const char* name : {"contains-ab", "a-since-b", "c-flanked", "flip-flop", "dyck-1-depth-2"}) {
    const lang::Language& l = catalog.find(name);
    for (std::size_t n : {10, 100, 1000, 10000}) {
      std::mt19937_64 rng = derived_rng(kDefaultSeed, name, n);
      std::vector<std::string> words;
      for (std::size_t k = 0; k < std::max<std::size_t>(4, 20000 / n); ++k) {
        words.push_back(words::random_word(rng, l.alphabet(), n, k));
      }
      const double eval = words_per_second(words, [&](const std::string& w) { return logic::accepts(*l.formula, w); }, sink);
      const double re2 = words_per_second(words, [&](const std::string& w) { return l.regex->accepts(w); }, sink);
      fmt::print("{:<18} {:>7} {:>16.0f} {:>16.0f} {:>8.3f}\n", name, n, eval, re2, eval / re2);
    }
  }
  fmt::print("(checksum {})\n", sink);
  return 0;
}
