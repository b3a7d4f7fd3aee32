#include "automata/count.h"

#include <cmath>
#include <limits>
#include <stdexcept>

#include "util/memory.h"

namespace softhat::automata {

WordCounter::WordCounter(const Dfa& dfa, std::size_t max_length)
    : dfa_(dfa), max_length_(max_length), value_(max_length + 1), scale_(max_length + 1, 0) {
  const std::size_t n = dfa.states(), k = dfa.alphabet.size();
  value_[0].resize(n);
  for (std::size_t q = 0; q < n; ++q) value_[0][q] = dfa.accepting[q] ? 1.0 : 0.0;
  for (std::size_t l = 1; l <= max_length; ++l) {
    std::vector<double>& v = value_[l];
    v.assign(n, 0.0);
    double top = 0;
    for (std::size_t q = 0; q < n; ++q) {
      for (std::size_t a = 0; a < k; ++a) v[q] += value_[l - 1][dfa.next(static_cast<std::int32_t>(q), a)];
      top = std::max(top, v[q]);
    }
    // Renormalize so the largest value is in [1, 2): the scale carries 2^e.
    int e = 0;
    if (top > 0) std::frexp(top, &e), e -= 1;
    for (double& x : v) x = std::ldexp(x, -e);
    scale_[l] = scale_[l - 1] + e;
  }
}

std::size_t WordCounter::table_bytes(std::size_t states, std::size_t max_length) {
  // Per length: a vector header, its values and a scale.
  const std::size_t per_length = util::saturating_sum({sizeof(std::vector<double>) + sizeof(int),
                                                       util::saturating_product({states, sizeof(double)})});
  return util::saturating_product({util::saturating_sum({max_length, 1}), per_length});
}

double WordCounter::log2_count(std::size_t length) const {
  if (length > max_length_) throw std::out_of_range("length beyond the counter's table");
  const double v = value_[length][dfa_.start];
  if (v <= 0) return -std::numeric_limits<double>::infinity();
  return std::log2(v) + scale_[length];
}

std::int64_t WordCounter::exact_count(std::size_t length) const {
  const double lg = log2_count(length);
  if (lg == -std::numeric_limits<double>::infinity()) return 0;
  if (lg >= 53) return -1;
  return static_cast<std::int64_t>(std::llround(std::ldexp(value_[length][dfa_.start], scale_[length])));
}

std::string WordCounter::sample(std::mt19937_64& rng, std::size_t length) const {
  std::string word;
  std::int32_t q = dfa_.start;
  const std::size_t k = dfa_.alphabet.size();
  for (std::size_t i = 0; i < length; ++i) {
    const std::size_t rest = length - i - 1;
    double total = 0;
    for (std::size_t a = 0; a < k; ++a) total += weight(rest, dfa_.next(q, a));
    if (!(total > 0)) throw std::logic_error("sampling from a length with no accepted word");
    double u = static_cast<double>(rng() >> 11) * 0x1.0p-53 * total;
    std::size_t pick = k;
    for (std::size_t a = 0; a < k; ++a) {
      const double w = weight(rest, dfa_.next(q, a));
      if (w <= 0) continue;
      pick = a;  // the last symbol with weight absorbs rounding at the top end
      if (u < w) break;
      u -= w;
    }
    word += dfa_.alphabet[pick];
    q = dfa_.next(q, pick);
  }
  return word;
}

std::vector<std::string> WordCounter::enumerate(std::size_t length, std::size_t limit) const {
  std::vector<std::string> out;
  std::string word;
  const std::size_t k = dfa_.alphabet.size();
  // Depth-first in alphabet order, pruned by the counts.
  auto walk = [&](auto&& self, std::int32_t q, std::size_t rest) -> void {
    if (out.size() >= limit) return;
    if (rest == 0) {
      if (dfa_.accepting[q]) out.push_back(word);
      return;
    }
    for (std::size_t a = 0; a < k && out.size() < limit; ++a) {
      const std::int32_t t = dfa_.next(q, a);
      if (weight(rest - 1, t) <= 0) continue;
      word.push_back(dfa_.alphabet[a]);
      self(self, t, rest - 1);
      word.pop_back();
    }
  };
  if (length <= max_length_ && weight(length, dfa_.start) > 0) walk(walk, dfa_.start, length);
  return out;
}

}  // namespace softhat::automata
