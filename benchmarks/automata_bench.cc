// Automata -> formula DAG -> transformer: time and memory per automaton.
//
//   softhat_bench_automata [DIR-or-FILE.att ...]   (default: the MLRegTest sample)
//
// For every .att file, and for a strictly piecewise automaton of 600+ states
// built here (4 letters, four forbidden subsequences of length 6, like
// MLRegTest's largest, a 612-state SP language): the minimal DFA's size, the
// route and cascade, the formula DAG, the time to derive it and prove it
// equal to the DFA, the time to compile it, the model's layers, heads and
// width, and the peak resident memory so far. Not a test: it prints numbers.
#include <fmt/format.h>
#include <sys/resource.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <sstream>

#include "automata/dfa.h"
#include "cascade/derive.h"
#include "compile/acceptor.h"
#include "compile/compiler.h"
#include "util/symbols.h"

using namespace softhat;

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

double peak_mib() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;
}

automata::Dfa read_att_file(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return automata::dfa_from_att(text.str(), automata::AttSource{path.string()});
}

// The words over abcd avoiding each forbidden word as a subsequence: the
// state is how much of each forbidden word has been matched greedily.
automata::Dfa strictly_piecewise(const std::vector<std::string>& forbidden) {
  automata::Dfa d;
  d.alphabet = "abcd";
  std::map<std::vector<int>, int> ids;
  std::vector<std::vector<int>> states{std::vector<int>(forbidden.size(), 0)};
  ids[states[0]] = 0;
  d.start = 0;
  for (std::size_t s = 0; s < states.size(); ++s) {
    const std::vector<int> cur = states[s];
    bool dead = false;
    for (std::size_t f = 0; f < forbidden.size(); ++f) dead = dead || cur[f] == static_cast<int>(forbidden[f].size());
    d.accepting.push_back(!dead);
    for (char c : d.alphabet) {
      std::vector<int> nxt = cur;
      if (!dead) {
        for (std::size_t f = 0; f < forbidden.size(); ++f) {
          if (nxt[f] < static_cast<int>(forbidden[f].size()) && forbidden[f][nxt[f]] == c) ++nxt[f];
        }
      }
      auto [it, added] = ids.emplace(nxt, static_cast<int>(states.size()));
      if (added) states.push_back(nxt);
      d.transitions.push_back(it->second);
    }
  }
  return automata::minimize(d);
}

void run(const std::string& name, const automata::Dfa& dfa) {
  const auto t0 = std::chrono::steady_clock::now();
  try {
    const cascade::Derived d = cascade::derive_formula(dfa);
    const double derive_s = seconds_since(t0);
    const auto t1 = std::chrono::steady_clock::now();
    const compile::Compiled c = compile::compile_formula(d.formula, dfa.alphabet, compile::derived_options({}, d));
    const double compile_s = seconds_since(t1);
    fmt::print("{:<28} {:>6} {:>4}  {:<9} {:>6} {:>7} {:>8.3f} {:>8.3f} {:>7} {:>6} {:>7} {:>9.0f}\n", name,
               dfa.states(), dfa.alphabet.size(), d.route, d.cascade.levels.size(), d.dag_nodes, derive_s, compile_s,
               c.plan.layers.size(), c.plan.heads(), c.plan.coords.size(), peak_mib());
  } catch (const cascade::NotStarFree&) {
    fmt::print("{:<28} {:>6} {:>4}  not star-free (refused with a witness in {:.3f} s)\n", name, dfa.states(),
               dfa.alphabet.size(), seconds_since(t0));
  }
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::filesystem::path> inputs;
  for (int i = 1; i < argc; ++i) inputs.emplace_back(argv[i]);
  if (inputs.empty()) inputs.emplace_back(SOFTHAT_MLREGTEST_DIR);
  std::vector<std::filesystem::path> files;
  for (const auto& p : inputs) {
    if (std::filesystem::is_directory(p)) {
      for (const auto& e : std::filesystem::directory_iterator(p)) {
        if (e.path().extension() == ".att") files.push_back(e.path());
      }
    } else {
      files.push_back(p);
    }
  }
  std::sort(files.begin(), files.end());
  fmt::print("{:<28} {:>6} {:>4}  {:<9} {:>6} {:>7} {:>8} {:>8} {:>7} {:>6} {:>7} {:>9}\n", "automaton", "states",
             "syms", "route", "levels", "DAG", "derive s", "compile", "layers", "heads", "width", "peak MiB");
  const auto all = std::chrono::steady_clock::now();
  for (const auto& f : files) run(f.filename().string(), read_att_file(f));
  // The first seeded set of forbidden length-6 subsequences whose minimal DFA
  // has at least 600 states (MLRegTest's largest SP automaton has 612).
  std::mt19937_64 rng(612);
  std::uniform_int_distribution<int> letter(0, 3);
  std::vector<std::string> forbidden;
  automata::Dfa sp;
  while (sp.states() < 600 && forbidden.size() < 40) {
    std::string w;
    for (int i = 0; i < 6; ++i) w += static_cast<char>('a' + letter(rng));
    forbidden.push_back(w);
    sp = strictly_piecewise(forbidden);
  }
  run(fmt::format("SP-built ({} x length 6)", forbidden.size()), sp);
  fmt::print("total {:.2f} s\n", seconds_since(all));
  return 0;
}
