// The float32 claim (compile --float32, verify/float32.h): measured exactly on
// models whose float32 rounding is known, held by every catalogue model,
// kept by the model file and refused when inconsistent, and tested by verify
// in float32 (a false claim is caught by the oracles).
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <cmath>
#include <fstream>
#include <filesystem>
#include <optional>
#include <nlohmann/json.hpp>

#include "cli/cli_helpers.h"
#include "compile/acceptor.h"
#include "io/file_util.h"
#include "io/model_file.h"
#include "lang/catalog.h"
#include "util/error.h"
#include "verify/float32.h"
#include "words/words.h"
#include "temp_path.h"

using namespace softhat;
namespace fs = std::filesystem;

namespace {

// No layers: the readout is embed[last symbol] (0 for the empty word), so
// the model accepts a word iff its last symbol's value is >= 1/2. With
// a_value < 1/2 and b_value = 1 it is last-b in double.
model::Transformer last_symbol_model(double a_value) {
  model::ModelConfig c;
  c.alphabet = "ab";
  c.d_model = 1;
  c.residual_labels = {"y"};
  c.readout = {0, 0.5};
  model::Transformer t = model::Transformer::zeros(c);
  t.embed(t.token('a'), 0) = a_value;
  t.embed(t.token('b'), 0) = 1.0;
  return t;
}

verify::Float32Options small_check() {
  verify::Float32Options o;
  o.max_len = 32;
  o.samples = 10;
  return o;
}

}  // namespace

TEST_CASE("float32: a readout that float32 rounds across the threshold is not claimed", "[float32]") {
  const lang::Catalog catalog = lang::Catalog::builtin();
  const double below = 0.5 - 1e-9;  // float32 rounds it to 0.5: accepted
  REQUIRE(static_cast<double>(static_cast<float>(below)) == 0.5);
  const verify::Float32Result r = verify::check_float32(last_symbol_model(below), catalog.find("last-b"), small_check());
  CHECK_FALSE(r.holds);
  // Words in check order: the empty word agrees, "a" is the first that differs.
  CHECK_THAT(r.failure, Catch::StartsWith("'a' (length 1): verdicts differ: double rejects"));
  CHECK(r.claim.max_deviation == Approx(1e-9).epsilon(1e-6));
}

TEST_CASE("float32: the deviation is the rounding, the margin the smallest, and the safety factor applies", "[float32]") {
  const lang::Catalog catalog = lang::Catalog::builtin();
  const double value = 0.1 + 1e-9;
  const double rounding = std::abs(value - static_cast<double>(static_cast<float>(value)));
  REQUIRE(rounding > 0);
  verify::Float32Options o = small_check();
  const verify::Float32Result r = verify::check_float32(last_symbol_model(value), catalog.find("last-b"), o);
  CHECK(r.holds);
  CHECK(r.failure.empty());
  CHECK(r.claim.max_deviation == rounding);
  CHECK(r.claim.max_state_deviation == rounding);
  CHECK(r.claim.min_margin == 0.5 - value);
  CHECK(r.claim.max_length == 32);
  // Every word up to length 10, then 10 balanced words at 16 and at 32.
  CHECK(r.claim.words == words::count_words(2, 10) + 2 * 10);

  o.safety = 1e12;  // margin / deviation is about 4e8
  const verify::Float32Result strict = verify::check_float32(last_symbol_model(value), catalog.find("last-b"), o);
  CHECK_FALSE(strict.holds);
  CHECK_THAT(strict.failure, Catch::StartsWith("'a' (length 1): double margin"));
}

TEST_CASE("float32: every catalogue model holds the claim, the same for any thread count", "[float32]") {
  const lang::Catalog catalog = lang::Catalog::builtin();
  int checked = 0;
  for (const lang::Language& l : catalog.languages()) {
    if (!compile::has_acceptor(l)) continue;
    INFO(l.name());
    model::Transformer t;
    try {
      t = compile::build_acceptor(l, {}).model;
    } catch (const InputError&) {
      continue;  // a formula outside the star-free fragment (parity): no transformer to check
    }
    verify::Float32Options o = small_check();
    const verify::Float32Result one = verify::check_float32(t, l, o);
    o.threads = 2;
    const verify::Float32Result two = verify::check_float32(t, l, o);
    CHECK(one.holds);
    CHECK(one.failure.empty());
    CHECK(one.claim.min_margin >= one.claim.safety * one.claim.max_deviation);
    CHECK(two.holds == one.holds);
    CHECK(two.claim.words == one.claim.words);
    CHECK(two.claim.max_deviation == one.claim.max_deviation);
    CHECK(two.claim.max_state_deviation == one.claim.max_state_deviation);
    CHECK(two.claim.min_margin == one.claim.min_margin);
    ++checked;
  }
  CHECK(checked >= 30);
}

TEST_CASE("float32: under a memory limit the check fits its threads, never changing the result", "[float32]") {
  const lang::Catalog catalog = lang::Catalog::builtin();
  const lang::Language& l = catalog.find("a-since-b");
  const model::Transformer t = compile::build_acceptor(l, {}).model;
  int refused = 0, ran = 0;
  for (std::size_t limit = std::size_t{1} << 14; limit <= (std::size_t{1} << 24); limit *= 2) {
    INFO("limit " << limit);
    std::optional<verify::Float32Result> one, many;
    verify::Float32Options o = small_check();
    o.run.max_memory = limit;
    try {
      one = verify::check_float32(t, l, o);
    } catch (const LimitError&) {
    }
    o.threads = 64;
    try {
      many = verify::check_float32(t, l, o);
    } catch (const LimitError&) {
    }
    REQUIRE(one.has_value() == many.has_value());
    if (!one) {
      ++refused;
      continue;
    }
    ++ran;
    CHECK(one->holds == many->holds);
    CHECK(one->claim.words == many->claim.words);
    CHECK(one->claim.max_state_deviation == many->claim.max_state_deviation);
  }
  CHECK(refused > 0);  // the limits span both sides
  CHECK(ran > 0);
}

TEST_CASE("float32: the model file keeps the claim and refuses an inconsistent one", "[float32][io]") {
  model::Transformer t = last_symbol_model(0.25);
  t.config.float32 = model::Float32Claim{64, 500, 0.25, 1e-8, 2e-7, 8};
  const fs::path path = test::temp_path("float32-claim.safetensors");
  io::save_model(t, path.string());
  const model::Transformer back = io::load_model(path.string());
  REQUIRE(back.config.float32.has_value());
  CHECK(back.config.float32->max_length == 64);
  CHECK(back.config.float32->words == 500);
  CHECK(back.config.float32->min_margin == 0.25);
  CHECK(back.config.float32->max_deviation == 1e-8);
  CHECK(back.config.float32->max_state_deviation == 2e-7);
  CHECK(back.config.float32->safety == 8);
  fs::remove(path);

  const nlohmann::json good = io::config_to_json(t.config);
  CHECK(io::config_from_json(good).float32.has_value());
  auto refused = [&](const char* key, const nlohmann::json& value, const std::string& message) {
    nlohmann::json j = good;
    if (value.is_null()) j["float32"].erase(key);
    else j["float32"][key] = value;
    INFO(key);
    CHECK_THROWS_WITH(io::config_from_json(j), Catch::Contains(message));
  };
  refused("min_margin", 1e-8, "margin is below safety x deviation");
  refused("max_deviation", -1.0, "finite margin and deviation >= 0");
  refused("safety", 0.5, "a safety factor >= 1");
  refused("min_margin", 0.0, "a margin > 0");
  refused("words", 0, "at least one word checked");
  refused("max_length", -3, "float32 max_length");
  refused("words", "many", "float32 words must be an integer");
  refused("max_state_deviation", nullptr, "max_state_deviation");
}

TEST_CASE("compile --float32 records the claim, and verify tests a claimed model in float32", "[float32][cli]") {
  const fs::path claimed = test::temp_path("f32-claimed.safetensors");
  const fs::path plain = test::temp_path("f32-plain.safetensors");
  const auto c = test::run_cli({"compile", "a-since-b", "--float32", "--float32-max-len", "40", "-o", claimed.string()});
  REQUIRE(c.status == 0);
  CHECK_THAT(c.err, Catch::StartsWith("softhat: float32 claimed up to length 40: "));
  REQUIRE(test::run_cli({"compile", "a-since-b", "-o", plain.string()}).status == 0);
  const model::Transformer t = io::load_model(claimed.string());
  REQUIRE(t.config.float32.has_value());
  CHECK(t.config.float32->max_length == 40);
  CHECK_FALSE(io::load_model(plain.string()).config.float32.has_value());

  const std::vector<std::string> words = {"--exhaustive", "5", "--lengths", "30", "--per-length", "20", "--json"};
  auto verify = [&](const fs::path& model, std::vector<std::string> extra) {
    std::vector<std::string> args = {"verify", "a-since-b", "--model", model.string()};
    args.insert(args.end(), words.begin(), words.end());
    args.insert(args.end(), extra.begin(), extra.end());
    return test::run_cli(args);
  };
  const auto in_float = verify(claimed, {});
  REQUIRE(in_float.status == 0);
  CHECK_THAT(in_float.err, Catch::Contains("claims float32 up to length 40: verifying in float32"));
  CHECK(nlohmann::json::parse(in_float.out)["precision"] == "float");
  CHECK_THAT(in_float.err, !Catch::Contains("beyond the claim"));
  const auto longer = test::run_cli({"verify", "a-since-b", "--model", claimed.string(), "--exhaustive", "3",
                                     "--lengths", "60", "--per-length", "5"});
  REQUIRE(longer.status == 0);
  CHECK_THAT(longer.err, Catch::Contains("verifying in float32 (words up to 60 symbols, beyond the claim)"));
  // The claim was measured in softmax at the model's own beta: another beta runs in double.
  const auto other_beta = verify(claimed, {"--beta", "3*(n+1)"});
  REQUIRE(other_beta.status == 0);
  CHECK_THAT(other_beta.err, Catch::Contains("claims float32 in softmax at its own beta only: verifying in double"));
  CHECK(nlohmann::json::parse(other_beta.out)["precision"] == "double");
  const auto in_double = verify(claimed, {"--precision", "double"});
  REQUIRE(in_double.status == 0);
  CHECK(nlohmann::json::parse(in_double.out)["precision"] == "double");
  const auto unclaimed = verify(plain, {"--precision", "float"});
  REQUIRE(unclaimed.status == 0);
  CHECK_THAT(unclaimed.err, Catch::Contains("makes no float32 claim"));
  CHECK(nlohmann::json::parse(verify(plain, {}).out)["precision"] == "double");

  // The flags that tune the check need the check.
  CHECK(test::run_cli({"compile", "a-since-b", "--float32-max-len", "40", "-o", plain.string()}).status == 2);
  fs::remove(claimed);
  fs::remove(plain);
}

TEST_CASE("verify: a false float32 claim is caught by the oracles in float32", "[float32][cli]") {
  // last-b in double; in float32 every word ending in 'a' is accepted.
  model::Transformer t = last_symbol_model(0.5 - 1e-9);
  t.config.float32 = model::Float32Claim{64, 1, 0.5, 0, 0, 8};  // forged: never checked
  const fs::path path = test::temp_path("f32-forged.safetensors");
  io::save_model(t, path.string());
  const std::vector<std::string> args = {"verify", "last-b", "--model", path.string(), "--exhaustive", "4",
                                         "--lengths", "10", "--per-length", "10", "--json"};
  const auto caught = test::run_cli(args);
  CHECK(caught.status == kExitDisagreement);
  const nlohmann::json j = nlohmann::json::parse(caught.out);
  CHECK(j["precision"] == "float");
  CHECK(j["languages"][0]["disagreements"].get<int>() > 0);
  std::vector<std::string> in_double = args;
  in_double.insert(in_double.end(), {"--precision", "double"});
  CHECK(test::run_cli(in_double).status == 0);
  fs::remove(path);
}

TEST_CASE("show --model: a model file's alphabet, counts, float32 claim and configuration", "[cli][float32]") {
  namespace fs = std::filesystem;
  const fs::path claimed = test::temp_path("show-claimed.safetensors");
  const fs::path plain = test::temp_path("show-plain.safetensors");
  REQUIRE(test::run_cli({"compile", "a-since-b", "--float32", "--float32-max-len", "40", "-o", claimed.string()}).status == 0);
  REQUIRE(test::run_cli({"compile", "a-since-b", "-o", plain.string()}).status == 0);
  for (const fs::path& file : {claimed, plain}) {
    const model::Transformer t = io::load_model(file.string());
    std::int64_t nonzero = 0, total = 0;  // counted here from the tensors themselves
    model::for_each_tensor(t, [&](const model::TensorView<const double>& v) {
      for (std::int64_t i = 0; i < v.size(); ++i) nonzero += v.data[i] != 0.0;
      total += v.size();
    });
    const auto text = test::run_cli({"show", "--model", file.string()});
    REQUIRE(text.status == 0);
    CHECK_THAT(text.out, Catch::Contains(fmt::format("weights      {} parameters, {} nonzero", total, nonzero)));
    CHECK_THAT(text.out, Catch::Contains("alphabet     " + t.config.alphabet));
    CHECK_THAT(text.out, Catch::Contains(model::describe_config(t.config)));
    CHECK_THAT(text.out, Catch::Contains(file == claimed ? "float32      claimed up to length 40" : "float32      not claimed"));
    const auto json = test::run_cli({"show", "--model", file.string(), "--json", "-"});
    REQUIRE(json.status == 0);
    const nlohmann::json doc = nlohmann::json::parse(json.out);
    CHECK(doc["model"]["nonzero_weights"] == nonzero);
    CHECK(doc["model"]["parameters"] == total);
    CHECK(doc["model"]["config"] == nlohmann::json::parse(io::config_to_json(t.config).dump()));
    CHECK(doc["model"]["config"].contains("float32") == (file == claimed));
  }
  // A language as well is refused; a truncated file is refused with its reason.
  CHECK(test::run_cli({"show", "--model", plain.string(), "a-since-b"}).status == 2);
  const fs::path cut = test::temp_path("show-cut.safetensors");
  {
    const std::string bytes = io::read_file(plain.string());
    std::ofstream(cut, std::ios::binary) << bytes.substr(0, bytes.size() / 2);
  }
  const auto bad = test::run_cli({"show", "--model", cut.string()});
  CHECK(bad.status == 2);
  CHECK_THAT(bad.err, Catch::Contains(cut.string()));
  for (const fs::path& f : {claimed, plain, cut}) fs::remove(f);
}
