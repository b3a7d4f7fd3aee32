#include "task/khop.h"

#include <fmt/format.h>

#include <array>
#include <vector>

#include "util/error.h"
#include "util/random.h"

namespace softhat::task {

std::string khop(std::string_view word, int hops) {
  const std::size_t n = word.size();
  // find[i] (0-based): the index after the previous occurrence of word[i], or -1.
  std::vector<long> find(n, -1);
  std::array<long, 256> last;
  last.fill(-1);
  for (std::size_t i = 0; i < n; ++i) {
    const auto c = static_cast<unsigned char>(word[i]);
    if (last[c] >= 0) find[i] = last[c] + 1;
    last[c] = static_cast<long>(i);
  }
  std::string out(n, kUndefined);
  for (std::size_t i = 0; i < n; ++i) {
    long p = static_cast<long>(i);
    for (int h = 0; h < hops && p >= 0; ++h) p = find[static_cast<std::size_t>(p)];
    if (p >= 0) out[i] = word[static_cast<std::size_t>(p)];
  }
  return out;
}

std::string khop_word(std::mt19937_64& rng, std::string_view alphabet, std::size_t n) {
  const std::size_t k = alphabet.size();
  std::string w;
  w.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    if (i == 0) {
      w += alphabet[uniform_int(rng, 0, k - 1)];
      continue;
    }
    const std::size_t prev = alphabet.find(w.back());
    const std::size_t r = uniform_int(rng, 0, k - 2);
    w += alphabet[r < prev ? r : r + 1];
  }
  return w;
}

std::string letters(int size) {
  if (size < 2 || size > 26) throw InputError(fmt::format("alphabet size {} is outside 2..26", size));
  std::string s;
  for (int i = 0; i < size; ++i) s += static_cast<char>('a' + i);
  return s;
}

}  // namespace softhat::task
