// S-RASP programs: the reference interpreter against the compiled model, per
// example, at padded lengths N near 250, 500 and 1,000.
//
//   softhat_bench_rasp [EXAMPLES_DIR]   (default: examples/srasp)
//
// For each compiled example it times one random word per length (best of 3):
// the interpreter (rasp::run_program), the engine in hard mode (average-hard
// attention from the weights, double) and in softmax at the scheduled
// beta(N). It prints the times, the ratio compiled / interpreter at N ~ 1000,
// and each path's growth exponent between the smallest and largest N (2 means
// quadratic), so "not asymptotically slower" is read off the exponents. Each
// engine output is checked against the interpreter's. Not a test: it prints
// numbers.
#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "model/forward.h"
#include "rasp/compile.h"
#include "rasp/program.h"
#include "words/words.h"

using namespace softhat;

namespace {

double best_of_3(const std::function<void()>& f) {
  double best = 1e300;
  for (int k = 0; k < 3; ++k) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string dir = argc > 1 ? argv[1] : SOFTHAT_SOURCE_DIR "/examples/srasp";
  const char* const names[] = {"rotate", "firsthalf", "reverse", "mapreverse", "compact",
                               "sortbin", "square",    "msquare", "khop",       "dyck2"};
  const double targets[] = {250, 500, 1000};
  fmt::print("{:<11} {:>5} {:>11} {:>11} {:>11} {:>9}\n", "program", "N", "interp ms", "hard ms", "softmax ms",
             "agree");
  std::vector<std::string> summary;
  for (const char* name : names) {
    const rasp::Program p = rasp::load_program(dir + "/" + name + ".srasp");
    const rasp::CompiledProgram c = rasp::compile_program(p);
    const model::Engine engine(c.model);
    std::mt19937_64 rng(20261203);
    double t_interp[3], t_hard[3], t_soft[3];
    std::int64_t padded_n[3];
    for (int l = 0; l < 3; ++l) {
      // the input length whose padded length is closest to the target
      std::size_t n = 1;
      while (static_cast<double>(p.length_with_padding(n + 1)) <= targets[l]) ++n;
      padded_n[l] = static_cast<std::int64_t>(p.length_with_padding(n));
      const std::string w = words::random_word(rng, p.alphabet, n, static_cast<std::uint64_t>(l));
      std::string expected, hard, soft;
      t_interp[l] = best_of_3([&] { expected = rasp::run_program(p, w, 10'000'000); });
      model::RunOptions opt;
      opt.mode = model::AttentionMode::kHard;
      t_hard[l] = best_of_3([&] { hard = engine.run(w, opt).output.value_or("?"); });
      opt.mode = model::AttentionMode::kSoftmax;
      t_soft[l] = best_of_3([&] { soft = engine.run(w, opt).output.value_or("?"); });
      fmt::print("{:<11} {:>5} {:>11.3f} {:>11.3f} {:>11.3f} {:>9}\n", name, padded_n[l], 1e3 * t_interp[l],
                 1e3 * t_hard[l], 1e3 * t_soft[l],
                 std::string(hard == expected ? "hard" : "HARD-NO") + "," + (soft == expected ? "soft" : "SOFT-NO"));
    }
    const double span = std::log(static_cast<double>(padded_n[2]) / static_cast<double>(padded_n[0]));
    auto growth = [&](const double* t) { return std::log(t[2] / t[0]) / span; };
    summary.push_back(fmt::format("{:<11} {:>5} {:>10.0f}x {:>10.0f}x {:>9.2f} {:>9.2f} {:>9.2f}", name, padded_n[2],
                                  t_hard[2] / t_interp[2], t_soft[2] / t_interp[2], growth(t_interp),
                                  growth(t_hard), growth(t_soft)));
  }
  fmt::print("\nratios at the largest N (baseline: the interpreter) and growth exponents t ~ N^e between N ~ 250 "
             "and N ~ 1000\n");
  fmt::print("{:<11} {:>5} {:>11} {:>11} {:>9} {:>9} {:>9}\n", "program", "N", "hard/int", "soft/int", "e interp",
             "e hard", "e soft");
  for (const std::string& line : summary) fmt::print("{}\n", line);
}
