// Corpus generation speed: 10,000 words per length for lengths 20-50 of
// catalogue languages (uniform negatives, then border negatives), with 1 and
// 2 threads; then 1,000 words per length for lengths 20-50 of every counting
// language of the catalogue (exact counting over the checker's
// configurations). Prints words/second; the baseline in the same run is plain
// rejection sampling (uniform words kept by the DFA), which is what a
// generator without counting must do.
#include <fmt/format.h>

#include <chrono>
#include <unordered_set>

#include "corpus/generate.h"
#include "lang/catalog.h"
#include "util/random.h"
#include "words/words.h"

int main() {
  using namespace softhat;
  using clock = std::chrono::steady_clock;
  const lang::Catalog catalog = lang::Catalog::builtin();
  fmt::print("{:<14} {:<8} {:>7} {:>9} {:>14}\n", "language", "negatives", "threads", "words", "words/second");
  for (const char* name : {"contains-ab", "flip-flop", "dyck-1-depth-2", "majority"}) {
    const lang::Language& l = catalog.find(name);
    for (auto neg : {corpus::Negatives::kUniform, corpus::Negatives::kBorder}) {
      for (int threads : {1, 2}) {
        corpus::GenerateOptions o;
        o.splits = {corpus::parse_split("20-50")};
        o.per_length = 10000;
        o.negatives = neg;
        o.threads = threads;
        const auto start = clock::now();
        const corpus::Corpus c = corpus::generate_corpus(l, o);
        const double s = std::chrono::duration<double>(clock::now() - start).count();
        fmt::print("{:<14} {:<8} {:>7} {:>9} {:>14.0f}\n", name, neg == corpus::Negatives::kBorder ? "border" : "uniform",
                   threads, c.splits[0].size(), static_cast<double>(c.splits[0].size()) / s);
      }
    }
  }
  fmt::print("\n{:<18} {:>9} {:>10} {:>10} {:>14}\n", "counting language", "words", "shortages", "seconds",
             "words/second");
  for (const lang::Language& l : catalog.languages()) {
    if (l.is_task() || lang::has_regular_dfa(l) || !l.checker) continue;
    corpus::GenerateOptions o;
    o.splits = {corpus::parse_split("20-50")};
    o.per_length = 1000;
    o.negatives = corpus::Negatives::kBorder;
    const auto start = clock::now();
    const corpus::Corpus c = corpus::generate_corpus(l, o);
    const double s = std::chrono::duration<double>(clock::now() - start).count();
    fmt::print("{:<18} {:>9} {:>10} {:>10.2f} {:>14.0f}\n", l.name(), c.splits[0].size(), c.shortages.size(), s,
               static_cast<double>(c.splits[0].size()) / s);
  }
  // Baseline: rejection from uniform words, labelled by the DFA, for the
  // positives of dyck-1-depth-2 at length 30 (rare: about 1 in 10^5).
  const lang::Language& l = catalog.find("dyck-1-depth-2");
  const automata::Dfa dfa = *lang::regular_dfa(l);
  std::mt19937_64 rng = derived_rng(1, "baseline");
  const auto start = clock::now();
  std::size_t found = 0, tried = 0;
  while (std::chrono::duration<double>(clock::now() - start).count() < 2.0) {
    found += dfa.accepts(words::random_word(rng, l.alphabet(), 30, 0));
    ++tried;
  }
  const double s = std::chrono::duration<double>(clock::now() - start).count();
  fmt::print("baseline rejection, dyck-1-depth-2 positives at length 30: {} of {} tries in {:.1f} s = {:.1f} "
             "positives/second\n", found, tried, s, static_cast<double>(found) / s);
  return 0;
}
