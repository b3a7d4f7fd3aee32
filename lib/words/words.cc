#include "words/words.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "util/error.h"
#include "util/random.h"

namespace softhat::words {

void for_each_word(std::string_view alphabet, std::size_t max_len,
                   const std::function<bool(const std::string&)>& visit) {
  const std::size_t k = alphabet.size();
  for (std::size_t len = 0; len <= max_len; ++len) {
    std::vector<std::size_t> digits(len, 0);
    std::string word(len, k ? alphabet[0] : '\0');
    while (true) {
      if (!visit(word)) return;
      bool done = true;  // odometer: increment the last digit, carry to the left
      for (std::size_t pos = len; pos-- > 0;) {
        if (++digits[pos] < k) {
          word[pos] = alphabet[digits[pos]];
          done = false;
          break;
        }
        digits[pos] = 0;
        word[pos] = alphabet[0];
      }
      if (done) break;
    }
  }
}

std::vector<std::string> all_words(std::string_view alphabet, std::size_t max_len) {
  std::vector<std::string> words;
  for_each_word(alphabet, max_len, [&](const std::string& w) {
    words.push_back(w);
    return true;
  });
  return words;
}

std::uint64_t count_words(std::size_t alphabet_size, std::size_t max_len) {
  std::uint64_t total = 0, power = 1;
  for (std::size_t len = 0; len <= max_len; ++len) {
    if (total > UINT64_MAX - power) return UINT64_MAX;
    total += power;
    if (len < max_len && alphabet_size && power > UINT64_MAX / alphabet_size) return UINT64_MAX;
    power *= alphabet_size;
  }
  return total;
}

std::size_t default_max_len(std::size_t alphabet_size) {
  std::size_t len = 0;
  double words = 1;
  while (len < 10 && words * static_cast<double>(alphabet_size) <= 2200) {
    words *= static_cast<double>(alphabet_size);
    ++len;
  }
  return alphabet_size <= 1 ? 10 : len;
}

std::string random_word(std::mt19937_64& rng, std::string_view alphabet, std::size_t n, std::uint64_t index) {
  std::string word(n, alphabet[0]);
  const std::uint64_t k = alphabet.size();
  if (index % 2 == 0 || n == 0) {
    for (char& c : word) c = alphabet[uniform_int(rng, 0, k - 1)];
    return word;
  }
  const std::uint64_t runs = uniform_int(rng, 1, std::min<std::uint64_t>(6, n));
  std::vector<std::size_t> cuts{0, n};
  for (std::uint64_t r = 1; r < runs; ++r) cuts.push_back(uniform_int(rng, 1, n - 1));
  std::sort(cuts.begin(), cuts.end());
  for (std::size_t r = 0; r + 1 < cuts.size(); ++r) {
    const char c = alphabet[uniform_int(rng, 0, k - 1)];
    std::fill(word.begin() + cuts[r], word.begin() + cuts[r + 1], c);
  }
  return word;
}

}  // namespace softhat::words

namespace softhat::words {

std::vector<std::string> adversarial_words(std::string_view alphabet, std::size_t n) {
  std::vector<std::string> out;
  auto add = [&](std::string w) {
    if (std::find(out.begin(), out.end(), w) == out.end()) out.push_back(std::move(w));
  };
  for (char a : alphabet) add(std::string(n, a));
  if (n == 0) return out;
  for (char a : alphabet) {
    for (char b : alphabet) {
      if (a == b) continue;
      add(std::string(n - 1, a) + b);
      add(b + std::string(n - 1, a));
      std::string mid(n, a);
      mid[n / 2] = b;
      add(mid);
      std::string p(n, a);
      for (std::size_t i = 1; i < n; i += 2) p[i] = b;
      add(p);
    }
  }
  return out;
}

std::vector<std::size_t> parse_length_list(const std::string& text, std::size_t max_length) {
  std::vector<std::size_t> out;
  auto number = [&](const std::string& item, const std::string& s) {
    std::size_t used = 0;
    unsigned long long v = 0;
    try {
      if (s.empty() || s[0] == '-' || s[0] == '+') throw std::invalid_argument(s);
      v = std::stoull(s, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != s.size() || s.empty()) {
      throw InputError(fmt::format("bad length '{}' in '{}' (expected N or A-B, e.g. 0-12,16,1000)", item, text));
    }
    if (v > max_length) throw InputError(fmt::format("length {} in '{}' exceeds the limit {}", v, text, max_length));
    return static_cast<std::size_t>(v);
  };
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    const std::string item = text.substr(start, comma - start);
    const std::size_t dash = item.find('-');
    std::size_t lo = 0, hi = 0;
    if (dash == std::string::npos) {
      lo = hi = number(item, item);
    } else {
      lo = number(item, item.substr(0, dash));
      hi = number(item, item.substr(dash + 1));
      if (hi < lo) throw InputError(fmt::format("empty range '{}' in '{}'", item, text));
    }
    for (std::size_t n = lo; n <= hi; ++n) {
      if (std::find(out.begin(), out.end(), n) == out.end()) out.push_back(n);
    }
    start = comma + 1;
  }
  return out;
}

}  // namespace softhat::words
