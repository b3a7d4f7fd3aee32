#include "words/source.h"

#include <fmt/format.h>

#include <memory>

#include "words/words.h"

namespace softhat::words {

WordSource WordSource::exhaustive(const std::string& alphabet, std::size_t max_len) {
  WordSource r{fmt::format("0-{} (all)", max_len), count_words(alphabet.size(), max_len), {}};
  r.at = [alphabet, max_len](std::uint64_t index) {
    const std::uint64_t k = alphabet.size();
    std::uint64_t len = 0, block = 1;
    while (index >= block && len < max_len) {  // skip the shorter lengths
      index -= block;
      ++len;
      block *= k;
    }
    std::string w(len, alphabet[0]);
    for (std::size_t p = len; p-- > 0;) {
      w[p] = alphabet[index % k];
      index /= k;
    }
    return w;
  };
  return r;
}

WordSource WordSource::list(std::string label, std::vector<std::string> words) {
  auto shared = std::make_shared<std::vector<std::string>>(std::move(words));
  return {std::move(label), shared->size(), [shared](std::uint64_t i) { return (*shared)[i]; }};
}

}  // namespace softhat::words
