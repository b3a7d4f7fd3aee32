#include "oracle/regex_oracle.h"

#include <fmt/format.h>
#include <re2/re2.h>

#include <algorithm>
#include <vector>

#include "automata/dfa.h"
#include "util/error.h"
#include "util/symbols.h"

namespace softhat::oracle {

namespace {
constexpr std::int64_t kRegexMemory = std::int64_t{512} << 20;  // RE2's default is 8 MiB

bool ascii(std::string_view word) {
  for (char c : word) {
    if (static_cast<unsigned char>(c) >= 0x80) return false;
  }
  return true;
}
}  // namespace

RegexOracle::RegexOracle(std::string pattern, std::string language) : pattern_(std::move(pattern)) {
  RE2::Options options;
  options.set_encoding(RE2::Options::EncodingUTF8);
  options.set_max_mem(kRegexMemory);
  options.set_log_errors(false);
  options.set_dot_nl(true);
  re_ = std::make_unique<re2::RE2>(pattern_, options);
  if (!re_->ok()) {
    throw InputError(fmt::format("language '{}': invalid regex '{}': {}", language, pattern_, re_->error()));
  }
}

RegexOracle::~RegexOracle() = default;
RegexOracle::RegexOracle(RegexOracle&&) noexcept = default;
RegexOracle& RegexOracle::operator=(RegexOracle&&) noexcept = default;

bool RegexOracle::accepts(std::string_view word) const {
  if (ascii(word)) return RE2::FullMatch(re2::StringPiece(word.data(), word.size()), *re_);
  const std::string text = sym::encode(word);
  return RE2::FullMatch(re2::StringPiece(text.data(), text.size()), *re_);
}

std::optional<std::string> first_disagreement(const automata::Dfa& dfa, const RegexOracle& re2,
                                              std::size_t max_words) {
  const std::size_t k = dfa.alphabet.size();
  // The longest length L whose words 0..L number at most max_words (at least 1).
  std::size_t max_len = 0;
  if (k > 0) {
    for (std::size_t total = 1, power = 1; power <= max_words / k && total + power * k <= max_words; ++max_len) {
      power *= k;
      total += power;
    }
  }
  max_len = std::max<std::size_t>(max_len, 1);
  // Length by length, in lexicographic order, following the DFA along the word.
  std::string word;
  std::vector<std::size_t> index;
  std::vector<std::int32_t> state{dfa.start};  // state[i]: after the first i symbols
  for (std::size_t n = 0; n <= max_len; ++n) {
    word.assign(n, k ? dfa.alphabet[0] : '\0');
    index.assign(n, 0);
    state.resize(n + 1);
    if (n > 0 && k == 0) break;
    for (std::size_t i = 0; i < n; ++i) state[i + 1] = dfa.next(state[i], 0);
    for (;;) {
      if ((dfa.accepting[static_cast<std::size_t>(state[n])] != 0) != re2.accepts(word)) return word;
      // The next word of length n: the last position that can advance does, the rest restart.
      std::size_t i = n;
      while (i > 0 && index[i - 1] + 1 == k) --i;
      if (i == 0) break;
      --i;
      ++index[i];
      word[i] = dfa.alphabet[index[i]];
      state[i + 1] = dfa.next(state[i], index[i]);
      for (std::size_t j = i + 1; j < n; ++j) {
        index[j] = 0;
        word[j] = dfa.alphabet[0];
        state[j + 1] = dfa.next(state[j], 0);
      }
    }
  }
  return std::nullopt;
}

}  // namespace softhat::oracle
