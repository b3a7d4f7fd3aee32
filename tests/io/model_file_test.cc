// The model file: exact round trips (a non-square matrix with distinct
// entries catches a silent transpose) and every corruption refused with its
// message.
#include <catch2/catch.hpp>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "io/file_util.h"
#include "io/model_file.h"
#include "model/forward.h"
#include "model/random_model.h"
#include "util/error.h"
#include "util/random.h"
#include "temp_path.h"

using namespace softhat;

namespace {
model::Transformer distinct_model() {
  std::mt19937_64 rng = derived_rng(1, "distinct");
  model::Transformer t;
  do {  // a model with at least one attention head in each of two layers
    t = model::random_model(rng, {"abc", 2, 2, 6});
  } while (t.layers.size() < 2 || t.layers[0].heads.empty() || t.layers[1].heads.empty());
  double v = 0.5;
  model::for_each_tensor(t, [&](const model::TensorView<double>& x) {
    for (std::int64_t k = 0; k < x.size(); ++k) x.data[k] = (v += 0.25);
  });
  return t;
}

std::string error_of(const std::string& bytes) {
  try {
    io::model_from_safetensors(bytes, "m.safetensors");
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

// Rewrites the JSON header (keeping the data) so tests can make it lie.
std::string with_header(const std::string& file, const std::function<void(nlohmann::json&)>& edit) {
  std::uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | static_cast<unsigned char>(file[i]);
  nlohmann::json h = nlohmann::json::parse(file.substr(8, n));
  edit(h);
  const std::string text = h.dump();
  std::string out(8, '\0');
  for (int i = 0; i < 8; ++i) out[i] = static_cast<char>((text.size() >> (8 * i)) & 0xff);
  return out + text + file.substr(8 + n);
}
}  // namespace

TEST_CASE("model file: round trip keeps every tensor, shape and the configuration", "[io]") {
  const model::Transformer t = distinct_model();
  const std::string bytes = io::model_to_safetensors(t);
  // Header length is a multiple of 8 and the file is exactly 8 + N + data.
  std::uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | static_cast<unsigned char>(bytes[i]);
  CHECK(n % 8 == 0);
  CHECK(bytes[8] == '{');
  const model::Transformer back = io::model_from_safetensors(bytes, "x");
  std::vector<std::pair<std::string, std::vector<double>>> a, b;
  model::for_each_tensor(t, [&](const model::TensorView<const double>& x) {
    a.emplace_back(x.name, std::vector<double>(x.data, x.data + x.size()));
  });
  model::for_each_tensor(back, [&](const model::TensorView<const double>& x) {
    b.emplace_back(x.name, std::vector<double>(x.data, x.data + x.size()));
  });
  CHECK(a == b);
  CHECK(io::config_to_json(back.config) == io::config_to_json(t.config));
  // A non-square matrix is stored [out, in] row-major: element (r, c) at r*in + c.
  const nlohmann::json header = nlohmann::json::parse(bytes.substr(8, n));
  const auto& pos = header.at("pos_proj.weight");
  CHECK(pos.at("shape") == nlohmann::json({t.pos_proj.rows(), t.pos_proj.cols()}));
  double first_two[2];
  std::memcpy(first_two, bytes.data() + 8 + n + pos.at("data_offsets")[0].get<std::size_t>(), 16);
  CHECK(first_two[0] == t.pos_proj(0, 0));
  CHECK(first_two[1] == t.pos_proj(0, 1));
  CHECK(t.pos_proj(0, 1) != t.pos_proj(1, 0));
  // Same outputs from the reloaded model.
  const model::Engine e1(t), e2(back);
  for (const char* w : {"", "a", "abcab", "ccccbbbbaaaa"}) CHECK(e1.run(w).y == e2.run(w).y);
}

TEST_CASE("model file: every corruption is refused with its message", "[io]") {
  const std::string good = io::model_to_safetensors(distinct_model());
  CHECK(error_of(good) == "(no error)");
  CHECK(error_of("") == "m.safetensors: not a model file: 0 bytes, too short for the 8-byte header length");
  CHECK(error_of(good.substr(0, 20)).find("m.safetensors: truncated: the header needs") == 0);
  CHECK(error_of(good.substr(0, good.size() - 1)).find("(truncated or padded)") != std::string::npos);
  CHECK(error_of(good + "x").find("(truncated or padded)") != std::string::npos);
  std::string huge = good;
  std::memset(huge.data(), 0xff, 8);
  CHECK(error_of(huge) == "m.safetensors: header length 18446744073709551615 exceeds the limit of 100000000");
  std::string not_json = good;
  not_json[8] = '[';
  CHECK(error_of(not_json) == "m.safetensors: the header is not a JSON object");
  CHECK(error_of(with_header(good, [](nlohmann::json& h) { h["embed.weight"]["dtype"] = "BF16"; })) ==
        "m.safetensors: tensor 'embed.weight': unsupported dtype 'BF16' (softhat reads F64 and F32)");
  // Numbers that are not integers, or out of range (a float offset was UB before: found by fuzz_model).
  CHECK(error_of(with_header(good, [](nlohmann::json& h) { h["embed.weight"]["data_offsets"][1] = 4.5e80; })) ==
        "m.safetensors: tensor 'embed.weight': data_offsets must be an integer, found 4.5e+80");
  CHECK(error_of(with_header(good, [](nlohmann::json& h) { h["embed.weight"]["shape"][0] = -1e300; })) ==
        "m.safetensors: tensor 'embed.weight': shape must be an integer, found -1e+300");
  CHECK(error_of(with_header(good, [](nlohmann::json& h) { h["embed.weight"]["data_offsets"][0] = -5; })) ==
        "m.safetensors: tensor 'embed.weight': data_offsets is -5, outside [0, 9223372036854775807]");
  CHECK(error_of(with_header(good, [](nlohmann::json& h) { h["embed.weight"]["data_offsets"][1] = 1u << 30; }))
            .find("m.safetensors: tensor 'embed.weight': data_offsets") == 0);
  CHECK(error_of(with_header(good, [](nlohmann::json& h) {
          auto& o = h["embed.weight"]["data_offsets"];
          o[0] = o[0].get<std::uint64_t>() + 8;
          o[1] = o[1].get<std::uint64_t>() + 8;
        })).find("(gap or overlap)") != std::string::npos);
  CHECK(error_of(with_header(good, [](nlohmann::json& h) {
          auto shape = h["pos_proj.weight"]["shape"];
          h["pos_proj.weight"]["shape"] = {shape[1], shape[0]};
        })).find("m.safetensors: tensor 'pos_proj.weight' has shape [") == 0);
  CHECK(error_of(with_header(good, [](nlohmann::json& h) {
          h["embed.weightX"] = h["embed.weight"];
          h.erase("embed.weight");
        })) == "m.safetensors: missing tensor 'embed.weight'");
  CHECK(error_of(with_header(good, [&](nlohmann::json& h) {
          const std::uint64_t end = good.size() - 8 - [&] {
            std::uint64_t n = 0;
            for (int i = 7; i >= 0; --i) n = (n << 8) | static_cast<unsigned char>(good[i]);
            return n;
          }();
          h["extra"] = {{"dtype", "F64"}, {"shape", {0}}, {"data_offsets", {end, end}}};
        })) == "m.safetensors: unexpected tensor 'extra'");
  CHECK(error_of(with_header(good, [](nlohmann::json& h) { h.erase("__metadata__"); })) ==
        "m.safetensors: no softhat configuration in __metadata__ (not a softhat model file?)");
  CHECK(error_of(with_header(good, [](nlohmann::json& h) {
          auto c = nlohmann::json::parse(h["__metadata__"]["softhat.config"].get<std::string>());
          c["format_version"] = 3;
          h["__metadata__"]["softhat.config"] = c.dump();
        })) == "m.safetensors: the file's format version 3 is newer than this softhat reads (2); upgrade softhat");
  CHECK(error_of(with_header(good, [](nlohmann::json& h) {
          auto c = nlohmann::json::parse(h["__metadata__"]["softhat.config"].get<std::string>());
          c["d_model"] = 99;
          h["__metadata__"]["softhat.config"] = c.dump();
        })).find("residual labels for d_model 99") != std::string::npos);
  CHECK(error_of(with_header(good, [](nlohmann::json& h) {
          auto c = nlohmann::json::parse(h["__metadata__"]["softhat.config"].get<std::string>());
          for (auto& layer : c["layers"]) {
            if (!layer["heads"].empty()) {
              layer["heads"][0]["mask"] = "sideways";
              break;
            }
          }
          h["__metadata__"]["softhat.config"] = c.dump();
        })) == "m.safetensors: model configuration: unknown mask 'sideways' (known: none, strict-future, future, "
               "strict-past, past)");
  // A NaN weight: overwrite the first element of the data buffer.
  std::uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | static_cast<unsigned char>(good[i]);
  std::string nan = good;
  const double q = std::numeric_limits<double>::quiet_NaN();
  std::memcpy(nan.data() + 8 + n, &q, 8);
  CHECK(error_of(nan).find("holds NaN at element 0") != std::string::npos);
  // Every truncation is refused without a crash.
  for (std::size_t len = 0; len < good.size(); len += 7) {
    CHECK(error_of(good.substr(0, len)) != "(no error)");
  }
}

TEST_CASE("model file: saving is whole or nothing", "[io]") {
  namespace fs = std::filesystem;
  const fs::path dir = softhat::test::temp_path("save");
  fs::remove_all(dir);
  fs::create_directories(dir);
  const model::Transformer t = distinct_model();
  io::save_model(t, (dir / "m.safetensors").string());
  CHECK(io::load_model((dir / "m.safetensors").string()).config.d_model == t.config.d_model);
  CHECK_THROWS_AS(io::save_model(t, (dir / "missing" / "m.safetensors").string()), InputError);
  std::size_t files = 0;
  for (const auto& e : fs::directory_iterator(dir)) files += e.is_regular_file();
  CHECK(files == 1);  // no temporary left behind
  CHECK_THROWS_WITH(io::load_model((dir / "nope").string()), Catch::StartsWith("cannot read"));
  fs::remove_all(dir);
}
