// The engine at benchmark scale, against the minimal DFA on the same words
// (the floor for this job). One JSON object per model on stdout:
//
//   softhat_bench_scale [--quick] [--att DIR] [--export DIR] [--only NAME]
//
// Models: every catalogue LTL language (star-free, defined by a formula) and
// 20 star-free automata of the MLRegTest sample (--att DIR, default the
// shared sample), from the smallest model to the largest. Per model: its
// layers, heads, width and nonzero weights; the DFA's states; symbols per
// second on seeded random words of lengths 20-50 for the table-driven DFA, the
// engine on one thread and the engine on two (one Runner each, the words
// split in two blocks, each run as `softhat run` reads a file: batches of
// 16,384 words in order of length; each the best of three passes after a
// warm-up, a pass repeating the words for about a quarter of a second); and the engine on one word of n = 10^4 (best of
// three runs after a warm-up run; the cold run's rate is printed too) and n = 10^6 (one run)
// (10^6 is run when the 10^4 rate says it takes under 30 s and the engine's
// estimate of its memory is under 6 GiB, else its projected time is printed and
// "measured" is false). The verdicts of the
// engine and of the DFA are compared on every word (a disagreement is
// printed, and the exit status is 1). --export DIR writes each model file and
// its words (DIR/NAME.safetensors, DIR/NAME.words) for the numpy/PyTorch side
// (benchmarks/python_scale.py). --quick: a quarter of the words, no n = 10^6.
// --only NAME: that catalogue language, or that automaton of the folder
// (chosen among the 20 or not).
// Not a test: it prints numbers.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <thread>

#include "automata/dfa.h"
#include "cascade/holonomy.h"
#include "compile/acceptor.h"
#include "io/model_file.h"
#include "lang/catalog.h"
#include "model/forward.h"
#include "util/random.h"
#include "util/symbols.h"
#include "verify/scale.h"
#include "words/words.h"

using namespace softhat;
namespace fs = std::filesystem;

namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

struct Case {
  std::string name, kind;  // kind: ltl or mlregtest
  std::shared_ptr<const lang::Language> language;
};

automata::Dfa dfa_of(const lang::Language& language) {
  if (language.automaton) return *language.automaton;  // the .att file's own table
  return automata::minimize(*lang::regular_dfa(language));
}

// Symbols per second of f over the words, repeated until 0.3 s have passed.
// The barrier makes every round read the words again (the compiler may not
// fold repeated rounds into one).
template <typename F>
double rate(std::vector<std::string>& words, std::size_t symbols, F&& f) {
  std::size_t rounds = 0;
  const auto t0 = Clock::now();
  double t = 0;
  do {
    asm volatile("" : : "r"(words.data()) : "memory");
    f();
    ++rounds;
    t = since(t0);
  } while (t < 0.3);
  return static_cast<double>(symbols * rounds) / t;
}

// The table-driven DFA: symbol codes mapped to indices once, then one table
// lookup per symbol.
struct TableDfa {
  std::array<std::int16_t, 256> index{};
  const automata::Dfa& dfa;
  explicit TableDfa(const automata::Dfa& d) : dfa(d) {
    index.fill(-1);
    for (std::size_t k = 0; k < d.alphabet.size(); ++k) index[static_cast<unsigned char>(d.alphabet[k])] = static_cast<std::int16_t>(k);
  }
  bool accepts(const std::string& w) const {
    std::int32_t s = dfa.start;
    const std::size_t k = dfa.alphabet.size();
    const std::int32_t* table = dfa.transitions.data();
    for (const char c : w) s = table[static_cast<std::size_t>(s) * k + static_cast<std::size_t>(index[static_cast<unsigned char>(c)])];
    return dfa.accepting[static_cast<std::size_t>(s)] != 0;
  }
};

std::vector<Case> cases(const std::string& att_dir, const std::string& only) {
  std::vector<Case> out;
  const lang::Catalog catalog = lang::Catalog::builtin();
  for (const lang::Language& l : catalog.languages()) {
    if (l.spec.language_class == "star-free" && l.defined_by() == "formula" && (only.empty() || only == l.name())) {
      out.push_back({l.name(), "ltl", std::make_shared<const lang::Language>(lang::build_language(l.spec))});
    }
  }
  // The sample's star-free automata, ordered by the size of their model; 20
  // of them spread evenly from the smallest to the largest.
  std::vector<std::pair<std::int64_t, Case>> sized;
  std::vector<fs::path> files;
  if (!only.empty() && !out.empty()) return out;
  for (const auto& e : fs::directory_iterator(att_dir)) {
    if (e.path().extension() == ".att") files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  for (const fs::path& f : files) {
    if (!only.empty() && f.stem().string() != only) continue;  // --only: any automaton of the folder
    lang::LanguageSpec spec;
    spec.name = f.stem().string();
    spec.automaton = lang::read_text_file(f.string());
    spec.automaton_file = f.string();
    spec.source = f.string();
    auto l = std::make_shared<const lang::Language>(lang::build_language(std::move(spec)));
    std::int64_t nnz = 0;
    try {
      nnz = verify::nonzero_weights(compile::build_acceptor(*l, {}).model);
    } catch (const cascade::NotStarFree&) {
      continue;  // no transformer for it
    }
    sized.push_back({nnz, {l->name(), "mlregtest", l}});
  }
  if (!only.empty()) {
    for (auto& [nnz, c] : sized) out.push_back(std::move(c));
    return out;
  }
  std::stable_sort(sized.begin(), sized.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  const std::size_t want = std::min<std::size_t>(20, sized.size());
  for (std::size_t k = 0; k < want; ++k) {
    const std::size_t at = want == 1 ? 0 : k * (sized.size() - 1) / (want - 1);
    out.push_back(sized[at].second);
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  bool quick = false;
  std::string att_dir = SOFTHAT_MLREGTEST_DIR, export_dir, only;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--quick") == 0) quick = true;
    else if (std::strcmp(argv[i], "--att") == 0 && i + 1 < argc) att_dir = argv[++i];
    else if (std::strcmp(argv[i], "--export") == 0 && i + 1 < argc) export_dir = argv[++i];
    else if (std::strcmp(argv[i], "--only") == 0 && i + 1 < argc) only = argv[++i];
    else {
      fmt::print(stderr, "usage: softhat_bench_scale [--quick] [--att DIR] [--export DIR] [--only NAME]\n");
      return 2;
    }
  }
  if (!export_dir.empty()) fs::create_directories(export_dir);
  int status = 0;
  for (const Case& c : cases(att_dir, only)) {
    if (!only.empty() && c.name != only) continue;
    const auto t_compile = Clock::now();
    model::Transformer t = compile::build_acceptor(*c.language, {}).model;
    const double compile_seconds = since(t_compile);
    if (!export_dir.empty()) io::save_model(t, export_dir + "/" + c.name + ".safetensors");
    const automata::Dfa dfa = dfa_of(*c.language);
    const TableDfa table(dfa);
    int heads = 0;
    for (const auto& l : t.config.layers) heads += static_cast<int>(l.heads.size());
    const std::int64_t nnz = verify::nonzero_weights(t);
    const model::Engine engine(std::move(t));

    // Words of lengths 20-50: about 200,000 symbols (50,000 quick), fewer
    // for the widest models so that one pass stays near a few seconds.
    std::mt19937_64 rng = derived_rng(kDefaultSeed, "scale-bench");
    const std::size_t budget = (quick ? 50000 : 200000) / static_cast<std::size_t>(std::max<std::int64_t>(1, nnz / 3000));
    std::vector<std::string> words;
    std::size_t symbols = 0;
    while (symbols < std::max<std::size_t>(budget, 3000)) {
      words.push_back(words::random_word(rng, c.language->alphabet(), static_cast<std::size_t>(uniform_int(rng, 20, 50)), words.size()));
      symbols += words.back().size();
    }
    if (!export_dir.empty()) {
      std::ofstream f(export_dir + "/" + c.name + ".words");
      for (const std::string& w : words) f << sym::encode(w) << "\n";  // UTF-8, as a word file is
    }

    std::size_t dfa_accepted = 0;
    const double dfa_rate = rate(words, symbols, [&] {
      std::size_t a = 0;
      for (const std::string& w : words) a += table.accepts(w);
      asm volatile("" : : "r"(a) : "memory");
      dfa_accepted = a;
    });
    std::vector<char> verdict(words.size());
    // Best of three passes on one thread and on two (one warm Runner each,
    // made before the clock starts), as grep's rate is its best of three.
    model::Runner first(engine), second(engine);
    // As `softhat run` reads a file: batches of kBatchWords words, each run
    // in order of length (model::length_order), the ordering timed too.
    auto run_block = [&](model::Runner& runner, std::size_t a, std::size_t b) {
      for (std::size_t s = a; s < b; s += model::kBatchWords) {
        const std::size_t e = std::min(b, s + model::kBatchWords);
        for (const std::size_t i : model::length_order(s, e - s, [&](std::size_t k) { return words[k].size(); })) {
          verdict[i] = runner.run(words[i]).accepted;
        }
      }
    };
    // A pass runs the words `rounds` times, enough for about a quarter of a
    // second on one thread: a pass of one round took 10-30 ms, and one
    // scheduler stall of the second thread could halve its two-thread rate.
    const auto t_warm = Clock::now();
    run_block(first, 0, words.size());
    const int rounds = static_cast<int>(std::clamp(std::ceil(0.25 / std::max(since(t_warm), 1e-6)), 1.0, 1000.0));
    run_block(second, words.size() / 2, words.size());
    auto run_rounds = [&](model::Runner& runner, std::size_t a, std::size_t b) {
      for (int r = 0; r < rounds; ++r) run_block(runner, a, b);
    };
    const double pass_symbols = static_cast<double>(symbols) * rounds;
    double one_thread = 0, two_threads = 0;
    for (int pass = 0; pass < 3; ++pass) {
      const auto t1 = Clock::now();
      run_rounds(first, 0, words.size());
      one_thread = std::max(one_thread, pass_symbols / since(t1));
    }
    for (int pass = 0; pass < 3; ++pass) {
      const auto t2 = Clock::now();
      std::thread other([&] { run_rounds(second, words.size() / 2, words.size()); });
      run_rounds(first, 0, words.size() / 2);
      other.join();
      two_threads = std::max(two_threads, pass_symbols / since(t2));
    }
    std::size_t disagreements = 0;
    for (std::size_t i = 0; i < words.size(); ++i) {
      if ((verdict[i] != 0) != table.accepts(words[i])) {
        if (disagreements++ == 0) fmt::print(stderr, "{}: engine and DFA disagree on '{}'\n", c.name, words[i]);
      }
    }
    if (disagreements) status = 1;

    // One long word each of n = 10^4 and (when it takes under half a minute)
    // 10^6. The 10^4 word is timed as the best of three runs after a warm-up
    // run, as a stream of such words runs: a single cold run measured the
    // heap's first growth (1.19M symbols/s on 04.03.TSL.2.1.9, where
    // `softhat run` reads a file of 10^4-symbol words at 8M). The 10^6 word
    // is one run: the runner gives back the buffers of a word of over 4,096
    // symbols, and buffers that size come from fresh pages, so every such
    // word of a stream starts cold.
    model::Runner runner(engine);
    struct Rates {
      double cold = 0, warm = 0;  // the first run's, and the best later one's
    };
    auto long_rate = [&](std::size_t n, int runs) {
      std::mt19937_64 r = derived_rng(kDefaultSeed, "scale-bench-long", n);
      const std::string w = words::random_word(r, c.language->alphabet(), n, 0);
      Rates rates;
      for (int k = 0; k < runs; ++k) {
        const auto t0 = Clock::now();
        const bool accepted = runner.run(w).accepted;
        const double rate = static_cast<double>(n) / since(t0);
        if (accepted != table.accepts(w)) {
          fmt::print(stderr, "{}: engine and DFA disagree on the word of length {}\n", c.name, n);
          status = 1;
        }
        if (k == 0) rates.cold = rate;
        else rates.warm = std::max(rates.warm, rate);
      }
      return rates;
    };
    const Rates rates_1e4 = long_rate(10000, 4);
    // A linear-time run (the scan paths are linear), projected from the cold
    // run, as a word of 10^6 runs.
    const double projected_1e6 = 1e6 / rates_1e4.cold;
    // Run when it takes under half a minute and fits in 6 GiB (the engine's
    // estimate: wide models need gigabytes for one word of 10^6).
    const bool fits = model::word_memory_bytes(engine.model(), 1000000, {}) < (std::size_t{6} << 30);
    const bool run_1e6 = !quick && projected_1e6 < 30 && fits;
    const double rate_1e6 = run_1e6 ? long_rate(1000000, 1).cold : 1e6 / projected_1e6;
    fmt::print(
        "{{\"model\": \"{}\", \"kind\": \"{}\", \"dfa_states\": {}, \"layers\": {}, \"heads\": {}, \"d_model\": {}, "
        "\"nonzero_weights\": {}, \"compile_seconds\": {:.3f}, \"words\": {}, \"symbols\": {}, "
        "\"dfa_symbols_per_second\": {:.0f}, \"engine_symbols_per_second\": {:.0f}, "
        "\"engine_2threads_symbols_per_second\": {:.0f}, \"dfa_over_engine_2threads\": {:.1f}, "
        "\"n1e4_symbols_per_second\": {:.0f}, \"n1e4_cold_symbols_per_second\": {:.0f}, "
        "\"n1e6_symbols_per_second\": {:.0f}, \"n1e6_measured\": {}, "
        "\"accepted\": {}, \"disagreements\": {}}}\n",
        c.name, c.kind, dfa.states(), engine.model().config.layers.size(), heads, engine.model().config.d_model, nnz,
        compile_seconds, words.size(), symbols, dfa_rate, one_thread, two_threads, dfa_rate / two_threads,
        rates_1e4.warm, rates_1e4.cold, rate_1e6, run_1e6 ? "true" : "false", dfa_accepted, disagreements);
    std::fflush(stdout);
  }
  return status;
}
