#include "automata/monoid.h"

#include <fmt/format.h>

#include <map>
#include <vector>

namespace softhat::automata {

MonoidReport analyze_monoid(const Dfa& dfa, std::size_t max_elements) {
  using Map = std::vector<std::int32_t>;  // state -> state
  const std::size_t n = dfa.states(), k = dfa.alphabet.size();
  // A budget of state steps as well as of elements: a group of order m over
  // m states (mod(m, r)) has few enough elements but costs m^3 steps to test
  // (found by fuzz_compile with mod(11110, 21): minutes and 1.4 GB).
  std::size_t work = 0;
  auto spend = [&] {
    work += n;
    if (work > kMaxMonoidWork) {
      throw LimitError(fmt::format("the transition monoid needs more than {} state steps; star-freeness not decided",
                                   kMaxMonoidWork));
    }
  };
  auto apply = [&](const Map& m, std::size_t a) {  // m then the letter a
    spend();
    Map r(n);
    for (std::size_t q = 0; q < n; ++q) r[q] = dfa.next(m[q], a);
    return r;
  };
  auto compose = [&](const Map& x, const Map& y) {  // x then y
    spend();
    Map r(n);
    for (std::size_t q = 0; q < n; ++q) r[q] = y[x[q]];
    return r;
  };
  // Breadth-first over words: each element keeps a shortest word reaching it.
  Map identity(n);
  for (std::size_t q = 0; q < n; ++q) identity[q] = static_cast<std::int32_t>(q);
  std::map<Map, std::size_t> index{{identity, 0}};
  std::vector<Map> elements{identity};
  std::vector<std::string> words{""};
  for (std::size_t i = 0; i < elements.size(); ++i) {
    for (std::size_t a = 0; a < k; ++a) {
      Map m = apply(elements[i], a);
      if (index.count(m)) continue;
      if (elements.size() >= max_elements) {
        throw LimitError(fmt::format("the transition monoid exceeds {} elements; star-freeness not decided",
                                     max_elements));
      }
      index.emplace(m, elements.size());
      elements.push_back(std::move(m));
      words.push_back(words[i] + dfa.alphabet[a]);
    }
  }
  MonoidReport report;
  report.size = elements.size();
  report.aperiodic = true;
  for (std::size_t e = 0; e < elements.size(); ++e) {
    // Powers m, m^2, ... until one repeats; aperiodic iff it repeats with period 1.
    std::map<Map, std::size_t> seen;
    Map p = elements[e];
    for (std::size_t power = 1;; ++power) {
      auto [it, fresh] = seen.emplace(p, power);
      if (!fresh) {
        const std::size_t period = power - it->second;
        if (period > 1 && (!report.witness || words[e].size() < report.witness->word.size())) {
          report.aperiodic = false;
          report.witness = AperiodicityWitness{words[e], it->second, period};
        }
        break;
      }
      p = compose(p, elements[e]);
    }
  }
  return report;
}

}  // namespace softhat::automata
