#include "logic/eval.h"

#include <stdexcept>

namespace softhat::logic {
namespace {
using Bits = std::vector<std::uint8_t>;
using Wide = __int128;  // counts times coefficients never overflow (|coefficient| <= 1e9)
}  // namespace

Evaluation::Evaluation(Formula root, std::string_view word) : order_(subformulas(root)) {
  const std::size_t n = word.size();
  values_.resize(order_.size());
  for (std::size_t s = 0; s < order_.size(); ++s) slot_[order_[s]] = s;
  auto val = [&](Formula f) -> const Bits& { return values_[slot_.at(f)]; };

  for (std::size_t s = 0; s < order_.size(); ++s) {
    const Node& node = *order_[s];
    Bits v(n, 0);
    switch (node.op) {
      case Op::kTrue: std::fill(v.begin(), v.end(), 1); break;
      case Op::kFalse: break;
      case Op::kLetter:
        for (std::size_t i = 0; i < n; ++i) v[i] = word[i] == node.letter;
        break;
      case Op::kFirst:
        if (n) v[0] = 1;
        break;
      case Op::kLast:
        if (n) v[n - 1] = 1;
        break;
      case Op::kMod:
        for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<std::int64_t>((i + 1) % node.m) == node.r;
        break;
      case Op::kNot: {
        const Bits& a = val(node.kids[0]);
        for (std::size_t i = 0; i < n; ++i) v[i] = !a[i];
        break;
      }
      case Op::kAnd:
      case Op::kOr: {
        const bool is_and = node.op == Op::kAnd;
        std::fill(v.begin(), v.end(), is_and);
        for (const Formula& k : node.kids) {
          const Bits& a = val(k);
          for (std::size_t i = 0; i < n; ++i) v[i] = is_and ? (v[i] & a[i]) : (v[i] | a[i]);
        }
        break;
      }
      case Op::kImplies: {
        const Bits &a = val(node.kids[0]), &b = val(node.kids[1]);
        for (std::size_t i = 0; i < n; ++i) v[i] = !a[i] || b[i];
        break;
      }
      case Op::kIff: {
        const Bits &a = val(node.kids[0]), &b = val(node.kids[1]);
        for (std::size_t i = 0; i < n; ++i) v[i] = a[i] == b[i];
        break;
      }
      // Past operators: index i-1 is position i; position 1 has nothing before it.
      case Op::kYesterday: {
        const Bits& a = val(node.kids[0]);
        for (std::size_t i = 1; i < n; ++i) v[i] = a[i - 1];
        break;
      }
      case Op::kOnce: {
        const Bits& a = val(node.kids[0]);
        for (std::size_t i = 1; i < n; ++i) v[i] = v[i - 1] | a[i - 1];
        break;
      }
      case Op::kHistorically: {
        const Bits& a = val(node.kids[0]);
        if (n) v[0] = 1;
        for (std::size_t i = 1; i < n; ++i) v[i] = v[i - 1] & a[i - 1];
        break;
      }
      case Op::kSince: {
        const Bits &g = val(node.kids[0]), &e = val(node.kids[1]);
        for (std::size_t i = 1; i < n; ++i) v[i] = e[i - 1] | (g[i - 1] & v[i - 1]);
        break;
      }
      // Future operators mirror them; position n has nothing after it.
      case Op::kNext: {
        const Bits& a = val(node.kids[0]);
        for (std::size_t i = 0; i + 1 < n; ++i) v[i] = a[i + 1];
        break;
      }
      case Op::kEventually: {
        const Bits& a = val(node.kids[0]);
        if (n) for (std::size_t i = n - 1; i-- > 0;) v[i] = v[i + 1] | a[i + 1];
        break;
      }
      case Op::kGlobally: {
        const Bits& a = val(node.kids[0]);
        if (n) v[n - 1] = 1;
        if (n) for (std::size_t i = n - 1; i-- > 0;) v[i] = v[i + 1] & a[i + 1];
        break;
      }
      case Op::kUntil: {
        const Bits &g = val(node.kids[0]), &e = val(node.kids[1]);
        if (n) for (std::size_t i = n - 1; i-- > 0;) v[i] = e[i + 1] | (g[i + 1] & v[i + 1]);
        break;
      }
      case Op::kCompare: {
        // Each counted formula's prefix count is accumulated on the fly.
        std::vector<Wide> lhs(n, static_cast<Wide>(node.lhs.constant));
        std::vector<Wide> rhs(n, static_cast<Wide>(node.rhs.constant));
        for (auto [term, out] : {std::pair{&node.lhs, &lhs}, std::pair{&node.rhs, &rhs}}) {
          for (const auto& [c, f] : term->counts) {
            const Bits& a = val(f);
            Wide count = 0;
            for (std::size_t i = 0; i < n; ++i) {
              count += a[i];
              (*out)[i] += static_cast<Wide>(c) * count;
            }
          }
        }
        for (std::size_t i = 0; i < n; ++i) v[i] = compare_ints<Wide>(lhs[i], node.cmp, rhs[i]);
        break;
      }
    }
    values_[s] = std::move(v);
  }
}

const std::vector<std::uint8_t>& Evaluation::values(Formula f) const { return values_[slot_.at(f)]; }

std::vector<std::uint8_t> truth_values(Formula f, std::string_view word) {
  Evaluation e(f, word);
  return e.values(f);
}

bool holds_on_empty_word(Formula root) {
  std::unordered_map<Formula, bool> value;
  for (const Formula& f : subformulas(root)) {
    const Node& node = *f;
    bool v = false;
    switch (node.op) {
      case Op::kTrue:
      case Op::kFirst:
      case Op::kLast:
      case Op::kHistorically:
      case Op::kGlobally: v = true; break;
      case Op::kFalse:
      case Op::kLetter:
      case Op::kYesterday:
      case Op::kOnce:
      case Op::kSince:
      case Op::kNext:
      case Op::kEventually:
      case Op::kUntil: v = false; break;
      case Op::kMod: v = node.r == 0; break;  // i = 0
      case Op::kNot: v = !value.at(node.kids[0]); break;
      case Op::kAnd:
        v = true;
        for (const Formula& k : node.kids) v = v && value.at(k);
        break;
      case Op::kOr:
        for (const Formula& k : node.kids) v = v || value.at(k);
        break;
      case Op::kImplies: v = !value.at(node.kids[0]) || value.at(node.kids[1]); break;
      case Op::kIff: v = value.at(node.kids[0]) == value.at(node.kids[1]); break;
      case Op::kCompare:  // every count is 0
        v = compare_ints<Wide>(node.lhs.constant, node.cmp, node.rhs.constant);
        break;
    }
    value[f] = v;
  }
  return value.at(root);
}

bool accepts(Formula f, std::string_view word) {
  if (word.empty()) return holds_on_empty_word(f);
  return truth_values(f, word).back() != 0;
}

}  // namespace softhat::logic
