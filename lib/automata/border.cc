#include "automata/border.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <vector>

#include "util/symbols.h"

namespace softhat::automata {

Dfa border_positives(const Dfa& dfa, std::size_t max_states) {
  const std::size_t k = dfa.alphabet.size();
  // NFA state (q, e): y read so far leads the DFA to q, e = edits used (0/1),
  // where y is x with at most one edit. A product state is (state of x in
  // the DFA, sorted set of NFA states), encoded as a vector: [x, q0, e0, ...].
  using Key = std::vector<std::int32_t>;
  auto closure = [&](std::vector<std::pair<std::int32_t, std::int32_t>>& set) {
    // Deletion from x is insertion into y: y may take any extra symbol.
    const std::size_t size = set.size();
    for (std::size_t i = 0; i < size; ++i) {
      if (set[i].second != 0) continue;
      for (std::size_t c = 0; c < k; ++c) set.emplace_back(dfa.next(set[i].first, c), 1);
    }
    std::sort(set.begin(), set.end());
    set.erase(std::unique(set.begin(), set.end()), set.end());
  };
  auto encode = [](std::int32_t x, const std::vector<std::pair<std::int32_t, std::int32_t>>& set) {
    Key key{x};
    for (const auto& [q, e] : set) {
      key.push_back(q);
      key.push_back(e);
    }
    return key;
  };
  std::vector<std::pair<std::int32_t, std::int32_t>> start{{dfa.start, 0}};
  closure(start);
  std::map<Key, std::int32_t> ids;
  std::vector<Key> keys;
  Dfa out;
  out.alphabet = dfa.alphabet;
  auto intern = [&](const Key& key) {
    auto [it, fresh] = ids.emplace(key, static_cast<std::int32_t>(keys.size()));
    if (fresh) {
      if (keys.size() >= max_states) {
        throw LimitError(fmt::format("the border automaton exceeds {} states", max_states), Limit::kStates);
      }
      keys.push_back(key);
      // Accept: x in L, and some y within one edit is outside L.
      bool outside = false;
      for (std::size_t i = 1; i < key.size(); i += 2) outside = outside || !dfa.accepting[key[i]];
      out.accepting.push_back(dfa.accepting[key[0]] && outside);
      out.transitions.resize(keys.size() * k, -1);
    }
    return it->second;
  };
  out.start = intern(encode(dfa.start, start));
  for (std::size_t s = 0; s < keys.size(); ++s) {
    for (std::size_t a = 0; a < k; ++a) {
      const Key key = keys[s];  // copy: intern may grow `keys`
      std::vector<std::pair<std::int32_t, std::int32_t>> next;
      for (std::size_t i = 1; i < key.size(); i += 2) {
        const std::int32_t q = key[i], e = key[i + 1];
        next.emplace_back(dfa.next(q, a), e);  // match
        if (e == 0) {
          for (std::size_t c = 0; c < k; ++c) {
            if (c != a) next.emplace_back(dfa.next(q, c), 1);  // substitution
          }
          next.emplace_back(q, 1);  // x's symbol is an insertion: y skips it
        }
      }
      closure(next);
      out.transitions[s * k + a] = intern(encode(dfa.next(key[0], a), next));
    }
  }
  return minimize(out);
}

std::vector<std::string> rejected_neighbours(const Dfa& dfa, const std::string& w) {
  const std::size_t n = w.size(), k = dfa.alphabet.size(), q = dfa.states();
  std::vector<std::int32_t> fwd(n + 1);  // state after w[0..i)
  fwd[0] = dfa.start;
  std::vector<std::size_t> sym(n);
  for (std::size_t i = 0; i < n; ++i) {
    sym[i] = dfa.alphabet.find(w[i]);
    if (sym[i] == std::string::npos) return {};
    fwd[i + 1] = dfa.next(fwd[i], sym[i]);
  }
  // ok[i * q + s]: reading w[i..) from s accepts.
  std::vector<std::uint8_t> ok((n + 1) * q);
  for (std::size_t s = 0; s < q; ++s) ok[n * q + s] = dfa.accepting[s];
  for (std::size_t i = n; i-- > 0;) {
    for (std::size_t s = 0; s < q; ++s) ok[i * q + s] = ok[(i + 1) * q + dfa.next(static_cast<std::int32_t>(s), sym[i])];
  }
  std::vector<std::string> out;
  for (std::size_t i = 0; i < n; ++i) {
    if (!ok[(i + 1) * q + fwd[i]]) out.push_back(w.substr(0, i) + w.substr(i + 1));  // delete w[i]
    for (std::size_t c = 0; c < k; ++c) {
      if (c != sym[i] && !ok[(i + 1) * q + dfa.next(fwd[i], c)]) {  // substitute
        std::string s = w;
        s[i] = dfa.alphabet[c];
        out.push_back(std::move(s));
      }
    }
  }
  for (std::size_t i = 0; i <= n; ++i) {
    for (std::size_t c = 0; c < k; ++c) {
      if (!ok[i * q + dfa.next(fwd[i], c)]) {  // insert before w[i]
        std::string s = w;
        s.insert(s.begin() + static_cast<std::ptrdiff_t>(i), dfa.alphabet[c]);
        out.push_back(std::move(s));
      }
    }
  }
  std::sort(out.begin(), out.end(), sym::CodePointLess());  // an order that does not depend on the codes
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace softhat::automata
