// The S-RASP compiler: each compiled example, run by the engine from its
// weights alone, against the reference interpreter (itself checked against
// direct oracles in rasp_test.cc) on every short word and on random long
// ones, in hard (AHAT) mode and in softmax at the scheduled beta(N).
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <random>
#include <string>

#include "model/exact_ahat.h"
#include "model/forward.h"
#include "rasp/compile.h"
#include "rasp/program.h"
#include "util/symbols.h"
#include "words/words.h"

using namespace softhat;

namespace {

const std::string kDir = SOFTHAT_SOURCE_DIR "/examples/srasp/";
const char* const kCompiled[] = {"rotate", "firsthalf", "reverse", "mapreverse", "mapdup", "compact",
                                 "sortbin", "square", "msquare", "khop", "dyck2"};

void check_word(const rasp::Program& p, const model::Engine& engine, const std::string& w, model::AttentionMode mode) {
  model::RunOptions opt;
  opt.mode = mode;
  const model::RunResult r = engine.run(w, opt);
  INFO(p.name << (mode == model::AttentionMode::kHard ? " hard" : " softmax") << " on '" << sym::encode(w)
              << "' beta " << r.beta);
  REQUIRE(r.output.has_value());
  REQUIRE(sym::encode(*r.output) == sym::encode(rasp::run_program(p, w, 1'000'000)));
}

}  // namespace

TEST_CASE("compiled S-RASP examples agree with the interpreter in hard mode and at the scheduled beta", "[rasp][compile]") {
  for (const char* name : kCompiled) {
    const rasp::Program p = rasp::load_program(kDir + name + ".srasp");
    const rasp::CompiledProgram c = rasp::compile_program(p);
    const model::Engine engine(c.model);
    const bool padded = p.pad.has_value();
    const std::size_t short_len = p.alphabet.size() <= 4 ? 6 : 5;
    for (model::AttentionMode mode : {model::AttentionMode::kHard, model::AttentionMode::kSoftmax}) {
      words::for_each_word(p.alphabet, short_len, [&](const std::string& w) {
        check_word(p, engine, w, mode);
        return true;
      });
      std::mt19937_64 rng(20261202);
      for (int k = 0; k < 200; ++k) {  // the interpreter's lengths (rasp_test.cc): N = n^2 when padded
        const std::size_t n = padded ? 20 + rng() % 21 : 20 + rng() % 81;
        check_word(p, engine, words::random_word(rng, p.alphabet, n, static_cast<std::uint64_t>(k)), mode);
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
      const model::RunResult r = engine.run(w, opt);
      wrong += r.output != rasp::run_program(p, w, 1'000'000);
    }
    INFO(name);
    CHECK(wrong > 0);
  }
}

TEST_CASE("the exact AHAT of each compiled example: the interpreter's outputs, and every head's gap at least its analytic gap", "[rasp][compile]") {
  for (const char* name : kCompiled) {
    const rasp::Program p = rasp::load_program(kDir + name + ".srasp");
    const rasp::CompiledProgram c = rasp::compile_program(p);
    const model::ExactAhat ahat(c.model);
    std::mt19937_64 rng(11);
    for (int k = 0; k < 12; ++k) {
      const std::size_t n = p.pad ? 1 + k % 5 : 1 + static_cast<std::size_t>(k) * 3;
      const std::string w = words::random_word(rng, p.alphabet, n, static_cast<std::uint64_t>(k));
      model::ExactRun run;
      const std::string out = rasp::exact_transduction(ahat, c.model.config, w, &run);
      INFO(name << " on '" << sym::encode(w) << "'");
      REQUIRE(out == rasp::run_program(p, w, 1'000'000));
      const std::int64_t padded = static_cast<std::int64_t>(p.length_with_padding(n));
      REQUIRE(run.heads.size() == c.gaps.size());
      for (std::size_t h = 0; h < c.gaps.size(); ++h) {
        INFO("head " << c.gaps[h].label << " measured " << run.heads[h].gap << " analytic " << c.gaps[h].at(padded));
        CHECK(run.heads[h].gap >= c.gaps[h].at(padded) * (1 - 1e-12));
      }
    }
  }
}

TEST_CASE("a program model refuses a word holding its pad symbol, though the symbol is in its alphabet", "[rasp][compile]") {
  for (const char* name : {"rotate", "square"}) {
    const rasp::CompiledProgram c = rasp::compile_program(rasp::load_program(kDir + name + ".srasp"));
    const model::Engine engine(c.model);
    REQUIRE(c.model.config.alphabet.find('#') != std::string::npos);
    for (const std::string w : {"#", "a#", "ab#b"}) {
      INFO(name << " on " << w);
      CHECK_THROWS_WITH(engine.run(w, {}), Catch::Contains("is the program's pad symbol"));
      CHECK_THROWS_WITH(engine.run(w, {}), Catch::Contains(fmt::format("at {}", w.find('#') + 1)));
    }
    CHECK(engine.run("ab", {}).output.has_value());
  }
}

TEST_CASE("a program's weights are checked against max_memory before they are allocated", "[rasp][compile]") {
  for (const char* name : {"rotate", "square"}) {
    const rasp::Program p = rasp::load_program(kDir + name + ".srasp");
    const rasp::CompiledProgram c = rasp::compile_program(p);
    const std::size_t need = sizeof(double) * model::Transformer::parameter_count(c.model.config);
    INFO(name << ": " << need << " bytes of weights");
    CHECK(rasp::compile_program(p, need).model.config.d_model == c.model.config.d_model);  // exactly enough
    try {
      rasp::compile_program(p, need - 1);
      FAIL("one byte below the program's weights compiled");
    } catch (const LimitError& e) {
      CHECK(e.limit() == Limit::kMemory);
      CHECK_THAT(e.what(), Catch::Contains(fmt::format("program {}: the compiled transformer (", p.name)));
    }
  }
}
