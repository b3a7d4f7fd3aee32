// Fuzz target: the model-file (safetensors) reader. Any bytes are either a
// model or an InputError; a model that loads runs on short words with a
// verdict or a clear per-word error, never a crash or a NaN verdict.
#include <cmath>
#include <cstdint>
#include <string_view>

#include "fuzz/fuzz_check.h"
#include "io/model_file.h"
#include "model/forward.h"
#include "util/error.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace softhat;
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  model::Transformer t;
  try {
    t = io::model_from_safetensors(bytes, "fuzz.safetensors");
  } catch (const InputError&) {
    return 0;
  }
  const model::Engine engine(std::move(t));
  model::Runner runner(engine);  // reused across the words, also after one fails
  const std::string& alphabet = engine.model().config.alphabet;
  for (std::size_t n : {0, 1, 3, 8}) {
    std::string w;
    for (std::size_t i = 0; i < n && !alphabet.empty(); ++i) w += alphabet[i % alphabet.size()];
    for (const model::AttentionMode mode : {model::AttentionMode::kSoftmax, model::AttentionMode::kHard}) {
      model::RunOptions o;
      o.mode = mode;
      o.max_memory = 1 << 26;
      try {
        const model::RunResult r = runner.run(w, o);
        FUZZ_CHECK(!std::isnan(r.y) || !r.accepted, "a NaN output accepted");
      } catch (const std::invalid_argument&) {
      } catch (const std::runtime_error&) {
      }
    }
  }
  return 0;
}
