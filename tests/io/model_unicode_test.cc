// Model files with non-ASCII alphabets (format version 2): the alphabet and
// the transducer symbols are stored as UTF-8 and read back to the same codes
// and the same outputs; version 1 files (ASCII) still load; a version 1 file
// with a non-ASCII byte is refused.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "compile/khop.h"
#include "io/file_util.h"
#include "io/model_file.h"
#include "model/forward.h"
#include "model/random_model.h"
#include "util/error.h"
#include "util/random.h"
#include "util/symbols.h"

using namespace softhat;

namespace {
std::string header_of(const std::string& file) {
  std::uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | static_cast<unsigned char>(file[i]);
  return file.substr(8, n);
}

// Rewrites the configuration inside the header (keeping the data).
std::string with_config(const std::string& file, const std::function<void(nlohmann::json&)>& edit) {
  const std::string old = header_of(file);
  nlohmann::json h = nlohmann::json::parse(old);
  nlohmann::json c = nlohmann::json::parse(h["__metadata__"]["softhat.config"].get<std::string>());
  edit(c);
  h["__metadata__"]["softhat.config"] = c.dump();
  h["__metadata__"]["softhat.format_version"] = std::to_string(c["format_version"].get<int>());
  std::string text = h.dump();
  text.append((8 - text.size() % 8) % 8, ' ');
  std::string out(8, '\0');
  for (int i = 0; i < 8; ++i) out[i] = static_cast<char>((text.size() >> (8 * i)) & 0xff);
  return out + text + file.substr(8 + old.size());
}

std::string error_of(const std::string& bytes) {
  try {
    io::model_from_safetensors(bytes, "m.safetensors");
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}
}  // namespace

TEST_CASE("unicode model file: a non-ASCII alphabet round trips as UTF-8", "[unicode][io]") {
  const std::string alphabet = sym::declare("a\u00e1\u01ce\U0001D49C");
  std::mt19937_64 rng = derived_rng(5, "unicode-model");
  const model::Transformer t = model::random_model(rng, {alphabet, 2, 2, 6});
  const std::string bytes = io::model_to_safetensors(t);
  const nlohmann::json header = nlohmann::json::parse(header_of(bytes));
  CHECK(header["__metadata__"]["softhat.format_version"] == "2");
  const nlohmann::json config = nlohmann::json::parse(header["__metadata__"]["softhat.config"].get<std::string>());
  CHECK(config["format_version"] == 2);
  CHECK(config["alphabet"] == "a\u00e1\u01ce\U0001D49C");
  CHECK(header["embed.weight"]["shape"][0] == 5);  // BOS + 4 symbols, not 1 + 9 bytes

  const model::Transformer back = io::model_from_safetensors(bytes, "m");
  CHECK(back.config.alphabet == alphabet);
  CHECK(back.config.vocabulary() == 5);
  CHECK(io::model_to_safetensors(back) == bytes);
  const model::Engine a(t), b(back);
  for (const std::string& w : {std::string(""), std::string("a"), alphabet, alphabet + alphabet.substr(1, 2)}) {
    CHECK(a.run(w).y == b.run(w).y);
  }
}

TEST_CASE("unicode model file: transducer symbols are UTF-8 too", "[unicode][io]") {
  const std::string alphabet = sym::declare("\u00e1\u00e9\u00ed\u00f3");
  const model::Transformer t = compile::build_khop(alphabet, 2);
  const std::string bytes = io::model_to_safetensors(t);
  const nlohmann::json config = nlohmann::json::parse(
      nlohmann::json::parse(header_of(bytes))["__metadata__"]["softhat.config"].get<std::string>());
  CHECK(config["transducer"]["symbols"] == "\u00e1\u00e9\u00ed\u00f3");
  CHECK(config["transducer"]["default"] == "~");
  const model::Transformer back = io::model_from_safetensors(bytes, "m");
  REQUIRE(back.config.transducer);
  CHECK(back.config.transducer->symbols == t.config.transducer->symbols);
  const std::string w = std::string{alphabet[0], alphabet[1], alphabet[2], alphabet[0], alphabet[1], alphabet[3]};
  CHECK(model::Engine(back).run(w).output == model::Engine(t).run(w).output);
}

TEST_CASE("unicode model file: version 1 files still load, and version 1 cannot hold non-ASCII", "[unicode][io]") {
  std::mt19937_64 rng = derived_rng(6, "v1-model");
  const model::Transformer t = model::random_model(rng, {"ab(", 2, 2, 6});
  const std::string v2 = io::model_to_safetensors(t);
  const std::string v1 = with_config(v2, [](nlohmann::json& c) { c["format_version"] = 1; });
  REQUIRE(v1 != v2);
  const model::Transformer old = io::model_from_safetensors(v1, "old");
  CHECK(old.config.alphabet == "ab(");
  CHECK(old.config.format_version == 2);  // read: a current configuration
  CHECK(model::Engine(old).run("a(b").y == model::Engine(t).run("a(b").y);
  CHECK(error_of(with_config(v2, [](nlohmann::json& c) {
          c["format_version"] = 1;
          c["alphabet"] = "a\u00e1(";
        })) == "m.safetensors: model configuration: the alphabet has a non-ASCII byte at 1, which format version 1 "
               "cannot hold");
  CHECK(error_of(with_config(v2, [](nlohmann::json& c) { c["format_version"] = 0; })) ==
        "m.safetensors: model configuration: format version 0 is not supported (this softhat reads versions 1 to 2)");
  CHECK(error_of(with_config(v2, [](nlohmann::json& c) { c["alphabet"] = "a\u0301("; })) ==
        "m.safetensors: model configuration: the model's alphabet has a bad or repeated symbol at 1");
}

TEST_CASE("unicode model file: the version 1 files in the repository load and run", "[unicode][io]") {
  // Written by softhat before version 2 (fuzz seeds): old files keep working.
  for (const char* name : {"a-since-b", "contains-ab", "majority"}) {
    INFO(name);
    const std::string path = std::string(SOFTHAT_SOURCE_DIR) + "/fuzz/corpus/model/" + name + ".safetensors";
    const std::string bytes = io::read_file(path);
    REQUIRE(nlohmann::json::parse(header_of(bytes))["__metadata__"]["softhat.format_version"] == "1");
    const model::Transformer m = io::load_model(path);
    CHECK(m.config.alphabet == (std::string(name) == "a-since-b" ? "abc" : "ab"));
    const model::RunResult r = model::Engine(m).run("ab");
    CHECK(r.output_margin > 0);
  }
  CHECK(model::Engine(io::load_model(std::string(SOFTHAT_SOURCE_DIR) + "/fuzz/corpus/model/a-since-b.safetensors"))
            .run("ba")
            .accepted);
}
