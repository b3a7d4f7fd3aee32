#include "verify/sample_words.h"

#include <fmt/format.h>

#include "corpus/generate.h"
#include "util/memory.h"
#include "util/random.h"
#include "util/symbols.h"
#include "words/words.h"

namespace softhat::verify {

std::vector<std::string> balanced_words(const lang::Language& language, std::size_t length, std::size_t samples,
                                        std::uint64_t seed, std::size_t max_memory) {
  std::vector<std::string> words;
  if (samples == 0) return words;
  corpus::GenerateOptions g;
  g.max_memory = max_memory;
  g.splits = {corpus::Split{.name = "verify", .lengths = {length}, .count = {}, .negatives = {}, .file = {}}};
  g.per_length = samples;
  g.negatives = corpus::Negatives::kBorder;
  g.seed = seed;
  const corpus::Corpus c = corpus::generate_corpus(language, g);
  for (const corpus::Example& e : c.splits[0]) {
    if (words.size() < samples) words.push_back(e.word);
  }
  std::mt19937_64 rng = derived_rng(seed, sym::encode(language.alphabet()), length);  // seeds never depend on codes
  for (std::uint64_t k = 0; words.size() < samples; ++k) words.push_back(words::random_word(rng, language.alphabet(), length, k));
  return words;
}

std::size_t sampled_words_bytes(const std::vector<std::size_t>& lengths, std::size_t samples) {
  std::size_t bytes = 0;  // each word's symbols plus its string and record, about 64 bytes
  for (std::size_t n : lengths) {
    bytes = util::saturating_sum({bytes, util::saturating_product({samples, util::saturating_sum({n, 64})})});
  }
  return bytes;
}

std::vector<words::WordSource> language_rows(const lang::Language& language, std::size_t max_len,
                                             const std::vector<std::size_t>& lengths, std::size_t samples,
                                             std::uint64_t seed, std::size_t max_memory) {
  std::vector<words::WordSource> rows{words::WordSource::exhaustive(language.alphabet(), max_len)};
  for (std::size_t n : lengths) {
    rows.push_back(words::WordSource::list(fmt::format("{}", n), balanced_words(language, n, samples, seed, max_memory)));
  }
  return rows;
}

}  // namespace softhat::verify
