// The S-RASP compiler: each compiled example, run by the engine from its
// weights alone, against the reference interpreter (itself checked against
// direct oracles in rasp_test.cc) on every short word and on random long
// ones, in hard (AHAT) mode and in softmax at the scheduled beta(N).
#include <catch2/catch.hpp>

#include <random>
#include <string>

#include "model/forward.h"
#include "rasp/compile.h"
#include "rasp/program.h"
#include "util/symbols.h"
#include "words/words.h"

using namespace softhat;

namespace {

const std::string kDir = SOFTHAT_SOURCE_DIR "/examples/srasp/";
const char* const kCompiled[] = {"rotate", "firsthalf", "reverse", "mapreverse", "compact", "sortbin",
                                 "square", "msquare", "khop", "dyck2"};

void check_word(const rasp::Program& p, const rasp::CompiledProgram& c, const model::Engine& engine,
                const std::string& w, model::AttentionMode mode) {
  model::RunOptions opt;
  opt.mode = mode;
  const rasp::CompiledRun r = rasp::run_compiled(p, c, engine, w, opt);
  INFO(p.name << (mode == model::AttentionMode::kHard ? " hard" : " softmax") << " on '" << sym::encode(w)
              << "' beta " << r.beta);
  REQUIRE_FALSE(r.range_error.has_value());
  REQUIRE(sym::encode(r.output) == sym::encode(rasp::run_program(p, w, 1'000'000)));
}

}  // namespace

TEST_CASE("compiled S-RASP examples agree with the interpreter in hard mode and at the scheduled beta", "[rasp][compile]") {
  for (const char* name : kCompiled) {
    const rasp::Program p = rasp::load_program(kDir + name + ".srasp");
    const rasp::CompiledProgram c = rasp::compile_program(p);
    const model::Engine engine(c.model);
    const bool padded = p.pad.has_value();
    const std::size_t short_len = padded ? 4 : p.alphabet.size() <= 4 ? 6 : 5;
    for (model::AttentionMode mode : {model::AttentionMode::kHard, model::AttentionMode::kSoftmax}) {
      words::for_each_word(p.alphabet, short_len, [&](const std::string& w) {
        check_word(p, c, engine, w, mode);
        return true;
      });
      std::mt19937_64 rng(20261202);
      for (int k = 0; k < (padded ? 10 : 100); ++k) {
        const std::size_t n = padded ? 10 + rng() % 11 : 20 + rng() % 81;
        check_word(p, c, engine, words::random_word(rng, p.alphabet, n, static_cast<std::uint64_t>(k)), mode);
      }
    }
  }
}

TEST_CASE("a fixed beta fails the compiled examples at large N, as Hahn's bound says it must", "[rasp][compile]") {
  for (const char* name : kCompiled) {
    const rasp::Program p = rasp::load_program(kDir + name + ".srasp");
    const rasp::CompiledProgram c = rasp::compile_program(p);
    const model::Engine engine(c.model);
    model::RunOptions opt;
    opt.mode = model::AttentionMode::kSoftmax;
    opt.beta = model::BetaSchedule{8.0, 0.0, 0.0};
    std::mt19937_64 rng(7);
    int wrong = 0;
    for (int k = 0; k < 10; ++k) {
      const std::string w = words::random_word(rng, p.alphabet, p.pad ? 12 : 60, static_cast<std::uint64_t>(k));
      const rasp::CompiledRun r = rasp::run_compiled(p, c, engine, w, opt);
      wrong += r.range_error || r.output != rasp::run_program(p, w, 1'000'000);
    }
    INFO(name);
    CHECK(wrong > 0);
  }
}
