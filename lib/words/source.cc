#include "words/source.h"

#include <fmt/format.h>

#include <memory>

#include "words/words.h"

namespace softhat::words {

namespace {
// Word `index` (0-based, lexicographic) of length `len`: index in base |alphabet|.
std::string word_of_length(const std::string& alphabet, std::size_t len, std::uint64_t index) {
  const std::uint64_t k = alphabet.size();
  std::string w(len, alphabet[0]);
  for (std::size_t p = len; p-- > 0;) {
    w[p] = alphabet[index % k];
    index /= k;
  }
  return w;
}
}  // namespace

WordSource WordSource::exhaustive(const std::string& alphabet, std::size_t max_len) {
  WordSource r{fmt::format("0-{} (all)", max_len), count_words(alphabet.size(), max_len), {}, true};
  r.at = [alphabet, max_len](std::uint64_t index) {
    const std::uint64_t k = alphabet.size();
    std::uint64_t len = 0, block = 1;
    while (index >= block && len < max_len) {  // skip the shorter lengths
      index -= block;
      ++len;
      block *= k;
    }
    return word_of_length(alphabet, len, index);
  };
  return r;
}

WordSource WordSource::of_length(const std::string& alphabet, std::size_t n) {
  std::uint64_t count = 1;  // |alphabet|^n, saturating
  for (std::size_t i = 0; i < n && count != UINT64_MAX; ++i) {
    count = alphabet.size() && count > UINT64_MAX / alphabet.size() ? UINT64_MAX : count * alphabet.size();
  }
  WordSource r{fmt::format("{} (all)", n), count, {}, true};
  r.at = [alphabet, n](std::uint64_t index) { return word_of_length(alphabet, n, index); };
  return r;
}

std::vector<std::string> WordSource::all() const {
  std::vector<std::string> words;
  words.reserve(count);
  for (std::uint64_t i = 0; i < count; ++i) words.push_back(at(i));
  return words;
}

WordSource WordSource::list(std::string label, std::vector<std::string> words) {
  auto shared = std::make_shared<std::vector<std::string>>(std::move(words));
  return {std::move(label), shared->size(), [shared](std::uint64_t i) { return (*shared)[i]; }, false};
}

}  // namespace softhat::words
