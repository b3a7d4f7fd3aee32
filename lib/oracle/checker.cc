#include "oracle/checker.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "util/error.h"
#include "util/random.h"
#include "util/symbols.h"

namespace softhat::oracle {

Checker::Checker(std::string kind, std::string symbols) : kind_(std::move(kind)), symbols_(std::move(symbols)) {
  auto need = [&](bool ok, const char* what) {
    if (!ok) throw InputError(fmt::format("checker '{}': symbols \"{}\" {}", kind_, sym::encode(symbols_), what));
  };
  for (std::size_t i = 0; i < symbols_.size(); ++i) {
    need(symbols_.find(symbols_[i]) == i, "repeat a symbol");
  }
  if (kind_ == "dyck") {
    need(!symbols_.empty() && symbols_.size() % 2 == 0, "must be pairs of open and close brackets");
  } else if (kind_ == "anbn") {
    need(symbols_.size() == 2 || symbols_.size() == 3, "must be 2 or 3 letters");
  } else if (kind_ == "majority" || kind_ == "prefix-majority" || kind_ == "twice") {
    need(symbols_.size() == 2, "must be 2 letters (the majority one first)");
  } else if (kind_ == "dyck-prefix") {
    need(symbols_.size() == 2, "must be one open and one close bracket");
  } else if (kind_ == "parity") {
    need(symbols_.size() == 1, "must be 1 letter (the one counted)");
  } else {
    throw InputError(fmt::format(
        "unknown checker kind '{}' (known: dyck, anbn, majority, prefix-majority, twice, dyck-prefix, parity)", kind_));
  }
}

bool Checker::accepts(std::string_view word) const {
  if (kind_ == "dyck") {
    std::vector<std::size_t> stack;
    for (char c : word) {
      const std::size_t k = symbols_.find(c);
      if (k == std::string::npos) return false;
      if (k % 2 == 0) {
        stack.push_back(k);
      } else {
        if (stack.empty() || stack.back() != k - 1) return false;
        stack.pop_back();
      }
    }
    return stack.empty();
  }
  if (kind_ == "anbn") {
    std::size_t count[3] = {0, 0, 0};
    std::size_t block = 0;
    for (char c : word) {
      const std::size_t k = symbols_.find(c);
      if (k == std::string::npos || k < block) return false;
      block = k;
      ++count[k];
    }
    for (std::size_t k = 1; k < symbols_.size(); ++k) {
      if (count[k] != count[0]) return false;
    }
    return true;
  }
  if (kind_ == "prefix-majority" || kind_ == "dyck-prefix") {
    // prefix-majority: every nonempty prefix has #first > #second (and the word is nonempty);
    // dyck-prefix: every prefix has #first >= #second.
    const bool strict = kind_ == "prefix-majority";
    if (strict && word.empty()) return false;
    long balance = 0;
    for (char c : word) {
      if (c == symbols_[0]) ++balance;
      else if (c == symbols_[1]) --balance;
      else if (!strict) return false;
      if (strict ? balance <= 0 : balance < 0) return false;
    }
    return true;
  }
  if (kind_ == "twice") {
    std::size_t a = 0, b = 0;
    for (char c : word) {
      a += c == symbols_[0];
      b += c == symbols_[1];
    }
    return a == 2 * b;
  }
  if (kind_ == "majority") {
    std::size_t more = 0, less = 0;
    for (char c : word) {
      more += c == symbols_[0];
      less += c == symbols_[1];
    }
    return more > less;
  }
  // parity
  std::size_t count = 0;
  for (char c : word) count += c == symbols_[0];
  return count % 2 == 1;
}

// A uniformly random ballot word of length n >= 1 over symbols_[0] (+1) and
// symbols_[1] (-1): every nonempty prefix sums to > 0. There are
// (d/n) C(n, (n+d)/2) of them ending at d, so d is drawn with those weights
// (in log space); then a uniform arrangement of the steps, and by the cycle
// lemma exactly d of its n rotations are ballot words: one of them, uniformly.
std::string Checker::ballot_word(std::mt19937_64& rng, std::size_t n) const {
  std::vector<double> logw;
  std::vector<std::size_t> ds;
  for (std::size_t d = (n % 2 ? 1 : 2); d <= n; d += 2) {
    const double k = static_cast<double>((n + d) / 2), nn = static_cast<double>(n);
    logw.push_back(std::log(static_cast<double>(d) / nn) + std::lgamma(nn + 1) - std::lgamma(k + 1) -
                   std::lgamma(nn - k + 1));
    ds.push_back(d);
  }
  const double top = *std::max_element(logw.begin(), logw.end());
  double total = 0;
  for (double& x : logw) total += (x = std::exp(x - top));
  double u = static_cast<double>(rng() >> 11) * 0x1.0p-53 * total;
  std::size_t d = ds.back();
  for (std::size_t i = 0; i < ds.size(); ++i) {
    if (u < logw[i]) {
      d = ds[i];
      break;
    }
    u -= logw[i];
  }
  std::string steps = std::string((n + d) / 2, symbols_[0]) + std::string((n - d) / 2, symbols_[1]);
  for (std::size_t i = steps.size(); i > 1; --i) std::swap(steps[i - 1], steps[uniform_int(rng, 0, i - 1)]);
  // prefix sums S_0..S_n; rotation starting at t is a ballot word iff
  // S_j > S_t for every j > t and d - S_t + S_j > 0 for every 1 <= j <= t.
  std::vector<long> s(n + 1, 0);
  for (std::size_t i = 0; i < n; ++i) s[i + 1] = s[i] + (steps[i] == symbols_[0] ? 1 : -1);
  std::vector<long> suffix_min(n + 2, std::numeric_limits<long>::max()), prefix_min(n + 1, std::numeric_limits<long>::max());
  for (std::size_t j = n; j >= 1; --j) suffix_min[j] = std::min(suffix_min[j + 1], s[j]);
  for (std::size_t j = 1; j <= n; ++j) prefix_min[j] = std::min(prefix_min[j - 1], s[j]);
  std::vector<std::size_t> good;
  for (std::size_t t = 0; t < n; ++t) {
    const bool after = suffix_min[t + 1] > s[t];
    const bool wrap = t == 0 || static_cast<long>(d) - s[t] + prefix_min[t] > 0;
    if (after && wrap) good.push_back(t);
  }
  const std::size_t t = good[uniform_int(rng, 0, good.size() - 1)];
  return steps.substr(t) + steps.substr(0, t);
}

std::optional<std::string> Checker::sample_positive(std::mt19937_64& rng, std::size_t n, bool* exists) const {
  if (exists) *exists = true;
  auto none = [&]() -> std::optional<std::string> {
    if (exists) *exists = false;
    return std::nullopt;
  };
  auto shuffle = [&](std::string& s) {
    for (std::size_t i = s.size(); i > 1; --i) std::swap(s[i - 1], s[uniform_int(rng, 0, i - 1)]);
  };
  if (kind_ == "anbn") {
    const std::size_t k = symbols_.size();
    if (n % k) return none();
    std::string w;
    for (char c : symbols_) w += std::string(n / k, c);
    return w;
  }
  if (kind_ == "twice") {  // n/3 b's and 2n/3 a's in uniformly random order
    if (n % 3) return none();
    std::string w = std::string(2 * n / 3, symbols_[0]) + std::string(n / 3, symbols_[1]);
    shuffle(w);
    return w;
  }
  if (kind_ == "prefix-majority" || kind_ == "dyck-prefix") {
    // dyck-prefix words of length n are ballot words of length n+1 without
    // their first symbol (which is always the majority one).
    const bool drop_first = kind_ == "dyck-prefix";
    const std::size_t len = n + drop_first;
    if (len == 0) return none();
    std::string w = ballot_word(rng, len);
    if (drop_first) w.erase(0, 1);
    return w;
  }
  if (kind_ == "dyck") {
    // Cycle lemma: among the rotations of a uniform arrangement of m up-steps
    // and m+1 down-steps exactly one stays >= 0 until its last step; drop
    // that step: a uniform Dyck path of length 2m. Then each matched pair
    // gets a uniformly random bracket type.
    if (n % 2) return none();
    const std::size_t m = n / 2;
    std::string steps = std::string(m, '+') + std::string(m + 1, '-');
    shuffle(steps);
    long sum = 0, low = 1;
    std::size_t at = 0;
    for (std::size_t t = 0; t < steps.size(); ++t) {
      sum += steps[t] == '+' ? 1 : -1;
      if (sum < low) {
        low = sum;
        at = t;
      }
    }
    std::string path = steps.substr(at + 1) + steps.substr(0, at + 1);
    path.pop_back();
    std::string w(n, '?');
    std::vector<std::size_t> open;
    const std::size_t types = symbols_.size() / 2;
    for (std::size_t i = 0; i < n; ++i) {
      if (path[i] == '+') {
        open.push_back(i);
        continue;
      }
      const std::size_t t = uniform_int(rng, 0, types - 1);
      w[open.back()] = symbols_[2 * t];
      w[i] = symbols_[2 * t + 1];
      open.pop_back();
    }
    return w;
  }
  return std::nullopt;
}

std::optional<std::string> Checker::sample_border_positive(std::mt19937_64& rng, std::size_t n) const {
  if (kind_ == "majority") {
    // #a - #b = d > 0 is one edit from a rejected word iff d <= 2; with
    // #a + #b = n the parity fixes d (1 if n is odd, else 2): shuffle.
    const std::size_t d = n % 2 ? 1 : 2;
    if (n < d) return std::nullopt;
    std::string w = std::string((n + d) / 2, symbols_[0]) + std::string((n - d) / 2, symbols_[1]);
    for (std::size_t i = w.size(); i > 1; --i) std::swap(w[i - 1], w[uniform_int(rng, 0, i - 1)]);
    return w;
  }
  // Every dyck, anbn and twice word is one edit from a rejected word, and so
  // is every prefix-majority word (it starts with a: make it b).
  if (kind_ == "dyck" || kind_ == "anbn" || kind_ == "twice" || kind_ == "prefix-majority") {
    return sample_positive(rng, n);
  }
  return std::nullopt;
}

std::string Checker::describe() const { return fmt::format("{}({})", kind_, sym::encode(symbols_)); }

}  // namespace softhat::oracle
