// Writes seeded random model files for the Python parity tests:
//   softhat_make_models DIR COUNT SEED   ->  DIR/random_K.safetensors
// and three over non-ASCII alphabets (token k is the k-th code point):
//                                        ->  DIR/unicode_K.safetensors
#include <fmt/format.h>

#include <cstdlib>
#include <string>

#include "io/model_file.h"
#include "model/random_model.h"
#include "util/random.h"
#include "util/symbols.h"

int main(int argc, char** argv) {
  if (argc != 4) {
    fmt::print(stderr, "usage: softhat_make_models DIR COUNT SEED\n");
    return 2;
  }
  const std::string dir = argv[1];
  const int count = std::atoi(argv[2]);
  const std::uint64_t seed = std::strtoull(argv[3], nullptr, 10);
  for (int k = 0; k < count; ++k) {
    std::mt19937_64 rng = softhat::derived_rng(seed, "parity", k);
    const char* alphabets[] = {"ab", "abc", "01()"};
    softhat::model::Transformer t = softhat::model::random_model(rng, {alphabets[k % 3], 3, 3, 8});
    softhat::io::save_model(t, fmt::format("{}/random_{}.safetensors", dir, k));
  }
  const char* unicode[] = {"a\u00e1b", "\u00e1\u00e0\u01ce\u00e9\u00e8\u011b", "x\u00f3\U0001D49C\u4e2d"};
  for (int k = 0; k < 3; ++k) {
    std::mt19937_64 rng = softhat::derived_rng(seed, "parity-unicode", k);
    const std::string alphabet = softhat::sym::declare(unicode[k]);
    softhat::model::Transformer t = softhat::model::random_model(rng, {alphabet, 3, 3, 8});
    softhat::io::save_model(t, fmt::format("{}/unicode_{}.safetensors", dir, k));
  }
  return 0;
}
