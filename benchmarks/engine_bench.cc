// The engine's throughput on one model file: words/second at n = 64 and
// n = 1024 (seeded random words), and the time for one word of length
// 100,000 (or --long N). Prints one JSON object, so benchmarks/engine_vs_torch.sh
// can put it beside the PyTorch module's numbers from the same run.
//   softhat_bench_engine MODEL [--long N] [--no-linear]
#include <fmt/format.h>

#include <chrono>
#include <cstring>
#include <string>
#include <vector>

#include "io/model_file.h"
#include "model/forward.h"
#include "util/random.h"
#include "words/words.h"

int main(int argc, char** argv) {
  using namespace softhat;
  if (argc < 2) {
    fmt::print(stderr, "usage: softhat_bench_engine MODEL [--long N]\n");
    return 2;
  }
  std::size_t long_n = 100000;
  model::RunOptions options;
  for (int i = 2; i < argc; ++i) {
    if (std::strcmp(argv[i], "--long") == 0 && i + 1 < argc) long_n = std::stoul(argv[i + 1]);
    if (std::strcmp(argv[i], "--no-linear") == 0) options.linear_scan = false;  // the blocked path only
  }
  const model::Engine engine(io::load_model(argv[1]));
  model::Runner runner(engine);
  const std::string& alphabet = engine.model().config.alphabet;
  std::string out = "{";
  for (std::size_t n : {64, 1024}) {
    std::mt19937_64 rng = derived_rng(kDefaultSeed, "bench", n);
    std::vector<std::string> words;
    for (int k = 0; k < 64; ++k) words.push_back(words::random_word(rng, alphabet, n, 0));
    std::size_t done = 0, accepted = 0;
    const auto start = std::chrono::steady_clock::now();
    double elapsed = 0;
    while (elapsed < 1.0) {
      accepted += runner.run(words[done % words.size()], options).accepted;
      ++done;
      elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    }
    out += fmt::format("\"words_per_second_n{}\": {:.1f}, ", n, static_cast<double>(done) / elapsed);
  }
  std::mt19937_64 rng = derived_rng(kDefaultSeed, "bench-long", long_n);
  const std::string word = words::random_word(rng, alphabet, long_n, 0);
  const auto start = std::chrono::steady_clock::now();
  const model::RunResult r = runner.run(word, options);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  out += fmt::format("\"long_n\": {}, \"long_seconds\": {:.3f}, \"long_accepted\": {}}}", long_n, seconds,
                     r.accepted ? "true" : "false");
  fmt::print("{}\n", out);
  return 0;
}
