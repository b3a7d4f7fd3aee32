#include "automata/dfa.h"

#include <cmath>
#include <cstdlib>

#include <fmt/format.h>

#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <numeric>
#include <unordered_map>

#include "logic/eval.h"
#include "logic/parse.h"
#include "util/interrupt.h"
#include "util/symbols.h"

namespace softhat::automata {


bool Dfa::accepts(std::string_view word) const {
  std::int32_t q = start;
  for (char c : word) {
    const std::size_t k = alphabet.find(c);
    if (k == std::string::npos) return false;
    q = next(q, k);
  }
  return accepting[q] != 0;
}

Dfa Dfa::complement() const {
  Dfa d = *this;
  for (auto& a : d.accepting) a = !a;
  return d;
}

namespace {

using logic::Formula;
using logic::Op;

// Index of subformulas, children first; which ones are guessed (future).
struct Closure {
  std::vector<Formula> order;
  std::unordered_map<Formula, int> index;
  std::vector<int> future;  // indices of X F G U last
  std::int64_t period = 1;  // lcm of the mod moduli

  explicit Closure(Formula root) : order(logic::subformulas(root)) {
    for (std::size_t i = 0; i < order.size(); ++i) {
      index[order[i]] = static_cast<int>(i);
      const Op op = order[i]->op;
      if (logic::is_future(op) || op == Op::kLast) future.push_back(static_cast<int>(i));
      if (op == Op::kMod) period = std::lcm(period, order[i]->m);
      if (period > 1'000'000) throw InputError("the mod predicates' period (lcm of their moduli) exceeds 1,000,000");
    }
  }
  int at(Formula f) const { return index.at(f); }
};

// An NFA state: truth values of every subformula at the current position,
// then the position modulo the period (as 8 bytes), as a byte string.
using State = std::string;

std::int64_t counter_of(const State& s, std::size_t n) {
  std::int64_t c = 0;
  for (int b = 0; b < 8; ++b) c |= static_cast<std::int64_t>(static_cast<unsigned char>(s[n + b])) << (8 * b);
  return c;
}

class Builder {
 public:
  Builder(const Closure& c, const std::string& alphabet) : c_(c), alphabet_(alphabet) {}

  // All consistent valuations at position i+1 (i = 0: the first position)
  // after reading `letter`, given the valuation at i (null at i = 0).
  void successors(const State* prev, char letter, std::vector<State>& out) const {
    const std::size_t n = c_.order.size();
    const std::int64_t pos = prev ? counter_of(*prev, n) + 1 : 1;
    const std::size_t k = c_.future.size();
    if (k > 24) throw LimitError("the formula has more than 24 future operators: its tableau is too large");
    State v(n + 8, '\0');
    for (std::uint64_t guess = 0; guess < (std::uint64_t{1} << k); ++guess) {
      if ((guess & 4095) == 4095) throw_if_interrupted();
      for (std::size_t g = 0; g < k; ++g) v[c_.future[g]] = static_cast<char>((guess >> g) & 1);
      if (!fill(prev, letter, pos, v)) continue;
      if (prev && !consistent(*prev, v)) continue;
      const std::int64_t counter = pos % c_.period;
      for (int b = 0; b < 8; ++b) v[n + b] = static_cast<char>((counter >> (8 * b)) & 0xff);
      out.push_back(v);
    }
  }

  // Does the valuation fit the end of the word, and does the root hold?
  bool accepting(const State& v) const {
    for (int f : c_.future) {
      const logic::Node& node = *c_.order[f];
      const bool end_value = node.op == Op::kGlobally || node.op == Op::kLast;
      if (v[f] != end_value) return false;
    }
    return v[c_.order.size() - 1] != 0;
  }

 private:
  // Computes the non-guessed values at position pos from the letter, the
  // previous valuation and the guesses; false if a guess is impossible here.
  bool fill(const State* prev, char letter, std::int64_t pos, State& v) const {
    for (std::size_t i = 0; i < c_.order.size(); ++i) {
      const logic::Node& node = *c_.order[i];
      auto val = [&](int k) { return v[c_.at(node.kids[k])] != 0; };
      auto before = [&](Formula f) { return prev && (*prev)[c_.at(f)] != 0; };
      bool x = false;
      switch (node.op) {
        case Op::kTrue: x = true; break;
        case Op::kFalse: x = false; break;
        case Op::kLetter: x = node.letter == letter; break;
        case Op::kFirst: x = prev == nullptr; break;
        case Op::kMod: x = pos % node.m == node.r; break;
        case Op::kNot: x = !val(0); break;
        case Op::kAnd:
          x = true;
          for (std::size_t k = 0; k < node.kids.size(); ++k) x = x && val(static_cast<int>(k));
          break;
        case Op::kOr:
          for (std::size_t k = 0; k < node.kids.size(); ++k) x = x || val(static_cast<int>(k));
          break;
        case Op::kImplies: x = !val(0) || val(1); break;
        case Op::kIff: x = val(0) == val(1); break;
        case Op::kYesterday: x = before(node.kids[0]); break;
        case Op::kOnce: x = prev && (before(node.kids[0]) || before(c_.order[i])); break;
        case Op::kHistorically: x = !prev || (before(node.kids[0]) && before(c_.order[i])); break;
        case Op::kSince:
          x = prev && (before(node.kids[1]) || (before(node.kids[0]) && before(c_.order[i])));
          break;
        case Op::kNext:
        case Op::kEventually:
        case Op::kGlobally:
        case Op::kUntil:
        case Op::kLast: continue;  // guessed
        case Op::kCompare: throw InputError("counting terms have no finite automaton");
      }
      v[i] = x;
    }
    return true;
  }

  // The future values guessed at the previous position, checked now.
  bool consistent(const State& prev, const State& v) const {
    for (int f : c_.future) {
      const logic::Node& node = *c_.order[f];
      auto now = [&](Formula g) { return v[c_.at(g)] != 0; };
      bool required = false;
      switch (node.op) {
        case Op::kNext: required = now(node.kids[0]); break;
        case Op::kEventually: required = now(node.kids[0]) || now(c_.order[f]); break;
        case Op::kGlobally: required = now(node.kids[0]) && now(c_.order[f]); break;
        case Op::kUntil: required = now(node.kids[1]) || (now(node.kids[0]) && now(c_.order[f])); break;
        case Op::kLast: required = false; break;  // a next position exists
        default: break;
      }
      if ((prev[f] != 0) != required) return false;
    }
    return true;
  }

  const Closure& c_;
  const std::string& alphabet_;
};

}  // namespace

Dfa dfa_from_formula(logic::Formula formula, const std::string& alphabet, std::size_t max_states) {
  if (formula->bits & logic::kCountBit) {
    throw InputError("the formula uses counting terms (#): it has no finite automaton in general");
  }
  const Closure closure(formula);
  const Builder builder(closure, alphabet);
  const std::size_t k = alphabet.size();
  // DFA states are sorted sets of NFA states; id 0 is the start (position 0).
  std::map<std::vector<State>, std::int32_t> ids;
  std::vector<std::vector<State>> sets;
  Dfa dfa;
  dfa.alphabet = alphabet;
  sets.push_back({});  // the start state: a special empty set tagged below
  dfa.accepting.push_back(logic::holds_on_empty_word(formula));
  dfa.transitions.assign(k, -1);
  auto intern = [&](std::vector<State> set) -> std::int32_t {
    std::sort(set.begin(), set.end());
    set.erase(std::unique(set.begin(), set.end()), set.end());
    auto [it, inserted] = ids.emplace(set, static_cast<std::int32_t>(sets.size()));
    if (inserted) {
      if (sets.size() >= max_states) {
        throw LimitError(fmt::format("the DFA exceeds {} states", max_states), Limit::kStates);
      }
      bool acc = false;
      for (const State& s : set) acc = acc || builder.accepting(s);
      sets.push_back(set);
      dfa.accepting.push_back(acc);
      dfa.transitions.resize(sets.size() * k, -1);
    }
    return it->second;
  };
  // Successors of one NFA state on one letter, computed once: many DFA states
  // share NFA states, and each computation tries 2^(future operators)
  // guesses. The NFA states met are an intermediate structure of the
  // construction, bounded by max_states too, and every loop polls for
  // interrupts.
  std::unordered_map<std::string, std::vector<State>> memo;
  std::size_t stored = 0;  // NFA states held by the memo, at most 64 per DFA state of the limit
  // The guesses tried, 2^(future operators) per computation, are bounded
  // too: 4 per state of the limit (a few seconds at the default million).
  const std::size_t guesses = std::size_t{1} << std::min<std::size_t>(closure.future.size(), 40);
  const std::size_t budget = max_states > SIZE_MAX / 4 ? SIZE_MAX : max_states * 4;
  const std::size_t state_budget = max_states > SIZE_MAX / 64 ? SIZE_MAX : max_states * 64;
  std::size_t work = 0;
  // Every computation of successors, the start's included (where no guess
  // is ruled out by a previous position: 2^(future operators) NFA states),
  // is charged before it runs, and the NFA states it gives after.
  auto charge = [&] {
    throw_if_interrupted();
    work += guesses;
    if (work > budget) {
      throw LimitError(fmt::format("the formula's tableau needs more than {} guesses ({} future operators, 2^{} "
                                   "guesses per state); the DFA would exceed {} states' work",
                                   budget, closure.future.size(), closure.future.size(), max_states),
                       Limit::kStates);
    }
  };
  auto store = [&](std::size_t states) {
    stored += states + 1;
    if (stored > state_budget) {
      throw LimitError(fmt::format("the formula's tableau exceeds {} states (64 per DFA state of the limit of {})",
                                   state_budget, max_states),
                       Limit::kStates);
    }
  };
  auto successors_of = [&](const State& s, std::size_t a) -> const std::vector<State>& {
    std::string key = s;
    key.push_back(alphabet[a]);
    auto it = memo.find(key);
    if (it != memo.end()) return it->second;
    charge();
    std::vector<State> out;
    builder.successors(&s, alphabet[a], out);
    store(out.size());
    return memo.emplace(std::move(key), std::move(out)).first->second;
  };
  std::vector<State> next;
  for (std::size_t q = 0; q < sets.size(); ++q) {
    throw_if_interrupted();
    for (std::size_t a = 0; a < k; ++a) {
      next.clear();
      if (q == 0) {
        charge();
        builder.successors(nullptr, alphabet[a], next);
        store(next.size());
      } else {
        for (const State& s : sets[q]) {
          const std::vector<State>& succ = successors_of(s, a);
          next.insert(next.end(), succ.begin(), succ.end());
        }
      }
      const std::int32_t target = intern(next);  // (may reallocate sets: index, not reference)
      dfa.transitions[q * k + a] = target;
    }
  }
  return minimize(dfa);
}

namespace {

// The states reachable from the start, in BFS order (order[0] = start), and
// each state's index in that order (-1: unreachable).
struct Reachable {
  std::vector<std::int32_t> order, id;
};
Reachable reachable(const Dfa& dfa) {
  const std::size_t k = dfa.alphabet.size();
  Reachable r;
  r.id.assign(dfa.states(), -1);
  r.id[dfa.start] = 0;
  r.order.push_back(dfa.start);
  for (std::size_t i = 0; i < r.order.size(); ++i) {
    for (std::size_t a = 0; a < k; ++a) {
      const std::int32_t t = dfa.next(r.order[i], a);
      if (r.id[t] < 0) {
        r.id[t] = static_cast<std::int32_t>(r.order.size());
        r.order.push_back(t);
      }
    }
  }
  return r;
}

// The quotient DFA of a partition of the reachable states (cls[i]: the
// class of order[i]), classes renumbered in BFS order from the start (a
// canonical numbering, so equal languages give equal DFAs).
Dfa quotient(const Dfa& dfa, const Reachable& r, const std::vector<std::int32_t>& cls, std::size_t classes) {
  const std::size_t k = dfa.alphabet.size();
  const std::size_t n = r.order.size();
  std::vector<std::int32_t> canon(classes, -1);
  std::int32_t next_id = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (canon[cls[i]] < 0) canon[cls[i]] = next_id++;
  }
  Dfa out;
  out.alphabet = dfa.alphabet;
  out.start = canon[cls[0]];
  out.accepting.assign(classes, 0);
  out.transitions.assign(classes * k, -1);
  for (std::size_t i = 0; i < n; ++i) {
    const std::int32_t c = canon[cls[i]];
    out.accepting[c] = dfa.accepting[r.order[i]];
    for (std::size_t a = 0; a < k; ++a) out.transitions[c * k + a] = canon[cls[r.id[dfa.next(r.order[i], a)]]];
  }
  return out;
}

}  // namespace

Dfa minimize(const Dfa& dfa) {
  // Hopcroft's partition refinement, O(k n log n). (Moore's refinement,
  // minimize_moore below, needs up to n rounds: mod(11110, 21) took 36 s;
  // found by fuzz_compile.) Blocks are contiguous ranges of `elems`; a split
  // moves the marked states to the front of their block.
  const std::size_t k = dfa.alphabet.size();
  const Reachable r = reachable(dfa);
  const std::size_t n = r.order.size();
  // Predecessors per letter, in CSR form: pred[a][pstart[a][t] .. pstart[a][t+1]).
  std::vector<std::vector<std::int32_t>> pstart(k, std::vector<std::int32_t>(n + 1, 0)), pred(k);
  for (std::size_t a = 0; a < k; ++a) {
    for (std::size_t i = 0; i < n; ++i) ++pstart[a][r.id[dfa.next(r.order[i], a)] + 1];
    for (std::size_t t = 0; t < n; ++t) pstart[a][t + 1] += pstart[a][t];
    pred[a].resize(n);
    std::vector<std::int32_t> fill(pstart[a].begin(), pstart[a].end() - 1);
    for (std::size_t i = 0; i < n; ++i) pred[a][fill[r.id[dfa.next(r.order[i], a)]]++] = static_cast<std::int32_t>(i);
  }
  std::vector<std::int32_t> elems(n), loc(n), block(n), first, past, marked;
  // Initial partition: accepting states, then the rest (empty blocks left out).
  std::size_t pos = 0;
  for (const bool acc : {true, false}) {
    const std::size_t begin = pos;
    for (std::size_t i = 0; i < n; ++i) {
      if (static_cast<bool>(dfa.accepting[r.order[i]]) != acc) continue;
      elems[pos] = static_cast<std::int32_t>(i);
      loc[i] = static_cast<std::int32_t>(pos);
      block[i] = static_cast<std::int32_t>(first.size());
      ++pos;
    }
    if (pos > begin) {
      first.push_back(static_cast<std::int32_t>(begin));
      past.push_back(static_cast<std::int32_t>(pos));
      marked.push_back(0);
    }
  }
  std::vector<char> waiting;  // (block, letter) pairs in the worklist, block * k + letter
  std::vector<std::pair<std::int32_t, std::int32_t>> work;
  auto push = [&](std::int32_t b, std::size_t a) {
    if (waiting.size() < (static_cast<std::size_t>(b) + 1) * k) waiting.resize((static_cast<std::size_t>(b) + 1) * k, 0);
    if (waiting[static_cast<std::size_t>(b) * k + a]) return;
    waiting[static_cast<std::size_t>(b) * k + a] = 1;
    work.emplace_back(b, static_cast<std::int32_t>(a));
  };
  for (std::size_t b = 0; b < first.size(); ++b) {
    for (std::size_t a = 0; a < k; ++a) push(static_cast<std::int32_t>(b), a);
  }
  std::vector<std::int32_t> splitter, touched;
  while (!work.empty()) {
    const auto [b, a] = work.back();
    work.pop_back();
    waiting[static_cast<std::size_t>(b) * k + static_cast<std::size_t>(a)] = 0;
    // The states with an a-transition into block b.
    splitter.clear();
    for (std::int32_t e = first[b]; e < past[b]; ++e) {
      const std::int32_t t = elems[e];
      for (std::int32_t p = pstart[a][t]; p < pstart[a][t + 1]; ++p) splitter.push_back(pred[a][p]);
    }
    touched.clear();
    for (const std::int32_t s : splitter) {
      const std::int32_t y = block[s];
      const std::int32_t to = first[y] + marked[y];  // move s into the marked front of its block
      const std::int32_t other = elems[to];
      std::swap(elems[loc[s]], elems[to]);
      loc[other] = loc[s];
      loc[s] = to;
      if (marked[y]++ == 0) touched.push_back(y);
    }
    for (const std::int32_t y : touched) {
      const std::int32_t m = marked[y];
      marked[y] = 0;
      if (m == past[y] - first[y]) continue;  // every state of y moves on a into b: no split
      const std::int32_t z = static_cast<std::int32_t>(first.size());  // the marked part becomes block z
      first.push_back(first[y]);
      past.push_back(first[y] + m);
      marked.push_back(0);
      first[y] += m;
      for (std::int32_t e = first[z]; e < past[z]; ++e) block[elems[e]] = z;
      for (std::size_t c = 0; c < k; ++c) {
        const bool y_waiting = waiting.size() > static_cast<std::size_t>(y) * k + c && waiting[static_cast<std::size_t>(y) * k + c];
        if (y_waiting || past[z] - first[z] <= past[y] - first[y]) push(z, c);
        else push(y, c);
      }
    }
  }
  return quotient(dfa, r, block, first.size());
}

Dfa minimize_moore(const Dfa& dfa) {
  const std::size_t k = dfa.alphabet.size();
  const Reachable r = reachable(dfa);
  const std::size_t n = r.order.size();
  // Moore: refine by (class, classes of the successors) until stable.
  std::vector<std::int32_t> cls(n);
  for (std::size_t i = 0; i < n; ++i) cls[i] = dfa.accepting[r.order[i]] ? 1 : 0;
  std::size_t classes = 0;
  while (true) {
    std::map<std::vector<std::int32_t>, std::int32_t> signature;
    std::vector<std::int32_t> next_cls(n);
    std::vector<std::int32_t> sig(k + 1);
    for (std::size_t i = 0; i < n; ++i) {
      sig[0] = cls[i];
      for (std::size_t a = 0; a < k; ++a) sig[a + 1] = cls[r.id[dfa.next(r.order[i], a)]];
      next_cls[i] = signature.emplace(sig, static_cast<std::int32_t>(signature.size())).first->second;
    }
    const bool stable = signature.size() == classes;
    classes = signature.size();
    cls.swap(next_cls);
    if (stable) break;
  }
  return quotient(dfa, r, cls, classes);
}

}  // namespace softhat::automata

namespace softhat::automata {

namespace {

// Splits one line into fields separated by runs of tabs and spaces.
std::vector<std::string_view> att_fields(std::string_view line) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    if (i == line.size()) break;
    std::size_t j = i;
    while (j < line.size() && line[j] != ' ' && line[j] != '\t') ++j;
    out.push_back(line.substr(i, j - i));
    i = j;
  }
  return out;
}

bool is_epsilon_label(std::string_view label) {
  return label == "<eps>" || label == "<epsilon>" || label == "\xCE\xB5";  // ε, U+03B5
}

// The index in `symbols` of an arc label's symbol (one code point): checked
// against `alphabet` when one is given, else interned and appended to
// `symbols` on first sight. fail(message) throws, naming the file and line.
std::size_t att_symbol(std::string_view label, const std::optional<std::string>& alphabet, std::string& symbols,
                     const std::function<void(const std::string&)>& fail) {
  if (is_epsilon_label(label)) {
    fail(fmt::format("an epsilon arc ('{}'): only deterministic acceptors without epsilon arcs are read "
                     "(remove them first, e.g. fstrmepsilon and fstdeterminize)",
                     label));
  }
  const std::optional<sym::Decoded> d = sym::decode_one(label, 0);
  if (!d) {
    std::string bytes;
    for (char c : label) bytes += fmt::format("{}0x{:02x}", bytes.empty() ? "" : " ", static_cast<unsigned char>(c));
    fail(fmt::format("symbol bytes {} are not valid UTF-8", bytes));
  }
  if (d->length != label.size()) {
    fail(fmt::format("symbol '{}' is more than one code point (a symbol is one Unicode code point)", label));
  }
  std::optional<char> code;
  if (alphabet) {
    code = sym::find(d->code_point);
    if (!code || alphabet->find(*code) == std::string::npos) {
      fail(fmt::format("symbol '{}' is not in the alphabet {}", label, sym::alphabet_set(*alphabet)));
    }
  } else {
    if (const char* why = sym::not_a_symbol(d->code_point)) {
      fail(fmt::format("symbol {} cannot be a symbol: {}", sym::code_point_name(d->code_point), why));
    }
    try {
      code = sym::intern(d->code_point);
    } catch (const InputError& e) {
      fail(fmt::format("symbol '{}': {}", label, e.what()));
    }
    if (symbols.find(*code) == std::string::npos) symbols += *code;
  }
  return symbols.find(*code);
}

}  // namespace

Dfa dfa_from_att(std::string_view text, const AttSource& source, const std::optional<std::string>& alphabet,
                 std::size_t max_states) {
  std::size_t line_no = 0;
  auto fail = [&](const std::string& what) {
    throw InputError(fmt::format("{}:{}: {}", source.name, line_no, what));
  };
  std::unordered_map<std::uint64_t, std::int32_t> ids;  // state number in the file -> dense id
  std::vector<std::uint64_t> numbers;                 // dense id -> state number
  auto state = [&](std::string_view field) -> std::int32_t {
    std::uint64_t v = 0;
    bool ok = !field.empty();
    for (char c : field) ok = ok && c >= '0' && c <= '9';
    if (!ok) fail(fmt::format("'{}' is not a state number (a non-negative integer)", field));
    if (field.size() > 18) fail(fmt::format("state number {} is too large (more than 18 digits)", field));
    for (char c : field) v = v * 10 + static_cast<std::uint64_t>(c - '0');
    auto it = ids.find(v);
    if (it != ids.end()) return it->second;
    if (ids.size() >= max_states) {
      throw LimitError(fmt::format("{}:{}: the automaton has more than {} states", source.name,
                                   line_no, max_states),
                       Limit::kStates);
    }
    const auto id = static_cast<std::int32_t>(numbers.size());
    ids.emplace(v, id);
    numbers.push_back(v);
    return id;
  };
  auto weight = [&](std::string_view field) {
    const std::string w(field);
    char* end = nullptr;
    const double v = std::strtod(w.c_str(), &end);
    if (w.empty() || end != w.c_str() + w.size() || !std::isfinite(v)) {
      fail(fmt::format("weight '{}' is not a (finite) number", field));
    }
  };
  std::string symbols = alphabet.value_or("");  // the alphabet, derived from the arcs if not given
  auto symbol = [&](std::string_view label) { return att_symbol(label, alphabet, symbols, fail); };

  struct Arc {
    std::int32_t src, dst;
    std::size_t symbol, line;
  };
  std::vector<Arc> arcs;
  std::vector<std::int32_t> finals;
  std::map<std::pair<std::int32_t, std::size_t>, std::pair<std::int32_t, std::size_t>> seen;  // (src, symbol) -> (dst, line)
  std::size_t pos = 0;
  line_no = source.first_line - 1;
  while (pos < text.size()) {
    std::size_t eol = text.find('\n', pos);
    if (eol == std::string_view::npos) eol = text.size();
    std::string_view line = text.substr(pos, eol - pos);
    pos = eol + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    const std::vector<std::string_view> f = att_fields(line);
    if (f.empty()) continue;
    if (f.size() <= 2) {
      finals.push_back(state(f[0]));
      if (f.size() == 2) weight(f[1]);
      continue;
    }
    if (f.size() > 5) {
      fail(fmt::format("{} fields; expected 'src dst in out [weight]', 'src dst label' or 'state [weight]'",
                       f.size()));
    }
    const std::int32_t src = state(f[0]), dst = state(f[1]);
    if (f.size() >= 4) {
      if (f[2] != f[3]) {
        fail(fmt::format("input '{}' and output '{}' differ: a transducer, not an acceptor", f[2], f[3]));
      }
      if (f.size() == 5) weight(f[4]);
    }
    const std::size_t a = symbol(f[2]);
    auto [it, fresh] = seen.emplace(std::make_pair(src, a), std::make_pair(dst, line_no));
    if (!fresh && it->second.first != dst) {
      fail(fmt::format("nondeterministic: state {} has two arcs on '{}', to {} (line {}) and to {}; only "
                       "deterministic acceptors are read (determinize first, e.g. fstdeterminize)",
                       numbers[src], f[2], numbers[it->second.first], it->second.second, numbers[dst]));
    }
    if (fresh) arcs.push_back({src, dst, a, line_no});
  }
  if (arcs.empty() && finals.empty()) {
    throw InputError(fmt::format("{}: an empty automaton (no arcs and no final states)", source.name));
  }
  // The initial state: the first arc's source; without arcs the first final
  // state listed (so the language is {empty word}, as OpenFst prints it).
  const std::int32_t start = arcs.empty() ? finals.front() : arcs.front().src;
  const std::size_t n = numbers.size(), k = symbols.size();
  const auto sink = static_cast<std::int32_t>(n);
  Dfa dfa;
  dfa.alphabet = symbols;
  dfa.start = start;
  dfa.accepting.assign(n + 1, 0);
  for (std::int32_t q : finals) dfa.accepting[static_cast<std::size_t>(q)] = 1;
  dfa.transitions.assign((n + 1) * k, sink);
  for (const Arc& arc : arcs) dfa.transitions[static_cast<std::size_t>(arc.src) * k + arc.symbol] = arc.dst;
  return minimize(dfa);
}

}  // namespace softhat::automata
