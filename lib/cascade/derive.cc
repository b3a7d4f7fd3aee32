#include "cascade/derive.h"

#include <fmt/format.h>

#include <deque>
#include <map>
#include <set>
#include <unordered_map>
#include <stdexcept>

#include "logic/eval.h"
#include "util/interrupt.h"
#include "util/symbols.h"

namespace softhat::cascade {
namespace {

using logic::Formula;

// The state at i − 1: prev = Y at ∨ [start] ∧ first for the state at i,
// at = in ∨ (stay ∧ (stay S in)) ∨ [start] ∧ stay ∧ H stay, written without Y:
// Y(in ∨ (stay ∧ (stay S in))) ≡ stay S in (a strict since at i is "in at
// i − 1, or stay at i − 1 and the since at i − 1"; both are false at i ≤ 1),
// and Y(stay ∧ H stay) ∨ first ≡ H stay (at every i ≥ 0). The or of the two
// is the weak since the compiler writes as one head (plan.cc).
Formula previous(Formula stay_since_in, Formula stay, bool start) {
  return start ? logic::or_(stay_since_in, logic::historically(stay)) : stay_since_in;
}

// Sizes of the DAG, and the named subformulas in dependency order.
void finish(Derived& out, const logic::Names& names) {
  for (Formula f : logic::subformulas(out.formula)) {
    ++out.dag_nodes;
    if (logic::is_past(f->op)) ++out.temporal_nodes;
    if (names.count(f)) out.defined.push_back(f);
  }
  for (Formula f : out.defined) out.names[f] = names.at(f);
}

// accept = ∨ over the states s the word can be in at i − 1 (each given by a
// formula `now` that holds exactly when it is) of now ∧ (the letters a with
// δ(s, a) accepting), ∨ "no letter" (the point 0 of the empty word) when the
// start state accepts; or the negation of the same with the rejecting
// letters, whichever has fewer terms. `each(emit)` calls emit(now, s).
template <class Each>
Formula accept_from_states(const automata::Dfa& dfa, Each each) {
  const std::size_t k = dfa.alphabet.size();
  std::vector<Formula> yes, no, letters;
  for (std::size_t a = 0; a < k; ++a) letters.push_back(logic::letter(dfa.alphabet[a]));
  each([&](Formula now, int s) {
    std::vector<Formula> to_yes, to_no;
    for (std::size_t a = 0; a < k; ++a) (dfa.accepting[dfa.next(s, a)] ? to_yes : to_no).push_back(letters[a]);
    if (!to_yes.empty()) yes.push_back(logic::and_(now, logic::or_(to_yes)));
    if (!to_no.empty()) no.push_back(logic::and_(now, logic::or_(to_no)));
  });
  (dfa.accepting[dfa.start] ? yes : no).push_back(logic::not_(logic::or_(letters)));
  return yes.size() <= no.size() ? logic::or_(yes) : logic::not_(logic::or_(no));
}

class Builder {
 public:
  Builder(const automata::Dfa& dfa, const Cascade& c) : dfa_(dfa), c_(c), levels_(static_cast<int>(c.levels.size())) {}

  Derived build() {
    Derived out;
    const std::size_t prefixes = c_.prefix_parent.size();
    pre_.assign(prefixes, Formula());
    pre_[0] = logic::make_true();
    prev_.assign(levels_, {});
    const std::vector<int>& init = c_.chains[c_.initial_chain];
    for (int d = 1; d <= levels_; ++d) {
      throw_if_interrupted();
      level(d, init[d - 1]);
      for (std::size_t p = 1; p < prefixes; ++p) {
        if (c_.prefix_level[p] != d) continue;
        const int v = c_.prefix_value[p];
        const Formula parent = pre_[c_.prefix_parent[p]];
        pre_[p] = v == kSkipped ? parent : name(logic::and_(parent, prev_[d - 1].at(v)), fmt::format("pre{}", p));
      }
    }
    out.formula = name(accept(), "accept");
    for (const std::map<int, Formula>& level : prev_) {  // a level holds one value at i − 1
      std::vector<Formula> group;
      for (const auto& [t, f] : level) group.push_back(f);
      out.exclusive.push_back(std::move(group));
    }
    finish(out, names_);
    return out;
  }

 private:
  Formula name(Formula f, std::string n) {
    const logic::Op op = f->op;
    if (op == logic::Op::kTrue || op == logic::Op::kFalse || op == logic::Op::kLetter) return f;
    names_.emplace(f, std::move(n));  // a node built twice keeps its first name
    return f;
  }

  // Level d's coordinates at(d, t) from its action table.
  void level(int d, int initial) {
    // (prefix, action) -> letters
    std::map<std::pair<int, int>, std::vector<Formula>> groups;
    for (const Cascade::Action& a : c_.actions[d - 1]) {
      if (a.action == kIdentity) continue;
      groups[{a.prefix, a.action}].push_back(logic::letter(dfa_.alphabet[a.letter]));
    }
    std::map<int, std::vector<Formula>> in_terms;  // value -> terms
    std::vector<Formula> reset_terms;
    for (auto& [key, letters] : groups) {
      const Formula term = logic::and_(pre_[key.first], logic::or_(letters));
      reset_terms.push_back(term);
      if (key.second != kSkipped) in_terms[key.second].push_back(term);
    }
    const Formula reset = name(logic::or_(reset_terms), fmt::format("reset{}", d));
    const std::size_t values = c_.levels[d - 1].used_values;
    for (std::size_t v = 0; v < values; ++v) {
      const int t = static_cast<int>(v);
      auto it = in_terms.find(t);
      const Formula in = name(it == in_terms.end() ? logic::make_false() : logic::or_(it->second),
                              fmt::format("in{}.{}", d, t));
      // The level keeps its value where it is not reset. ¬(RESET ∧ ¬IN) would
      // say the same wherever it matters (IN implies RESET, and the since only
      // looks after the last IN), but ¬RESET makes the since's stop RESET ∨ IN
      // = RESET instead of an or of an and: one FFN stage less.
      const Formula stay = name(logic::not_(reset), fmt::format("stay{}.{}", d, t));
      prev_[d - 1][t] = name(previous(logic::since(stay, in), stay, t == initial), fmt::format("prev{}.{}", d, t));
    }
  }

  // Acceptance from the chain at i − 1 and the letter at i: the DFA's state
  // at i is δ(state of the chain, w_i). One term pre(leaf) ∧ (letters that
  // lead to acceptance) per chain, plus "no letter" (true only at the point 0
  // of the empty word) when the start state accepts; or the complement's
  // terms negated, whichever is shorter. Exactly one leaf chain holds at
  // i − 1 and one letter at i, so the terms exclude each other and the
  // compiler reads their or as a sum (plan.cc, exclusivity).
  Formula accept() {
    const std::size_t prefixes = c_.prefix_parent.size();
    std::map<std::pair<int, int>, int> child_of;
    for (std::size_t p = 1; p < prefixes; ++p) child_of[{c_.prefix_parent[p], c_.prefix_value[p]}] = static_cast<int>(p);
    std::vector<int> leaf_state(prefixes, -1);
    for (std::size_t i = 0; i < c_.chains.size(); ++i) {
      int p = 0;
      for (int v : c_.chains[i]) p = child_of.at({p, v});
      leaf_state[p] = c_.chain_state[i];
    }
    return accept_from_states(dfa_, [&](auto&& emit) {
      for (std::size_t p = 0; p < prefixes; ++p) {
        if (leaf_state[p] >= 0) emit(pre_[p], leaf_state[p]);
      }
    });
  }

  const automata::Dfa& dfa_;
  const Cascade& c_;
  int levels_;
  std::vector<Formula> pre_;
  std::vector<std::map<int, Formula>> prev_;
  logic::Names names_;
};


// Partially ordered DFAs (every cycle is a self-loop: the minimal DFAs of
// piecewise testable and strictly piecewise languages, among others): a state
// once left is never entered again, so each state is one reset component of
// its own. With stay(q) = "the letter does not leave q" (true at the point 0)
// and enter(q) = "the letter leads into q from the state at i−1 ≠ q":
//   at(q) = enter(q) ∨ (stay(q) ∧ (stay(q) S enter(q))) ∨ [q = start] ∧ stay(q) ∧ H stay(q).
// Exact: the state is q at i iff q was entered at the last j ≤ i that
// entered it and every later letter loops at q, or q is the start and every
// letter so far loops at it. The formula uses the state at i − 1,
// prev(q) = stay(q) S enter(q) ∨ [q = start] ∧ H stay(q) (see previous()), and
// accepts from it and the letter at i (accept_from_states).
// The states with every self-loop ignored, predecessors first (Kahn); fewer
// than all states when some cycle is not a self-loop.
std::vector<int> loop_free_order(const automata::Dfa& dfa) {
  const std::size_t n = dfa.states(), k = dfa.alphabet.size();
  std::vector<int> order, indegree(n, 0);
  for (std::size_t q = 0; q < n; ++q) {
    for (std::size_t a = 0; a < k; ++a) {
      const auto r = static_cast<std::size_t>(dfa.next(static_cast<int>(q), a));
      if (r != q) ++indegree[r];
    }
  }
  for (std::size_t q = 0; q < n; ++q) {
    if (!indegree[q]) order.push_back(static_cast<int>(q));
  }
  for (std::size_t i = 0; i < order.size(); ++i) {
    for (std::size_t a = 0; a < k; ++a) {
      const int r = dfa.next(order[i], a);
      if (r != order[i] && --indegree[r] == 0) order.push_back(r);
    }
  }
  return order;
}

bool is_partially_ordered(const automata::Dfa& dfa) { return loop_free_order(dfa).size() == dfa.states(); }

Derived ordered_formula(const automata::Dfa& dfa) {
  const std::size_t n = dfa.states(), k = dfa.alphabet.size();
  const std::vector<int> order = loop_free_order(dfa);  // predecessors first
  if (order.size() != n) throw std::logic_error("derive_formula: the DFA is not partially ordered");
  logic::Names names;
  auto name = [&](Formula f, std::string s) {
    const logic::Op op = f->op;
    if (op != logic::Op::kTrue && op != logic::Op::kFalse && op != logic::Op::kLetter) names.emplace(f, std::move(s));
    return f;
  };
  std::vector<Formula> prev(n);
  std::vector<int> level(n, 0);  // longest path from a source
  for (int q : order) {
    // predecessor -> the letters from it to q that stay at q, and those that leave q
    std::map<int, std::pair<std::vector<Formula>, std::vector<Formula>>> by_pred;
    std::vector<Formula> leaving;
    for (std::size_t a = 0; a < k; ++a) {
      if (dfa.next(q, a) != q) leaving.push_back(logic::letter(dfa.alphabet[a]));
    }
    for (std::size_t p = 0; p < n; ++p) {
      if (static_cast<int>(p) == q) continue;
      for (std::size_t a = 0; a < k; ++a) {
        if (dfa.next(static_cast<int>(p), a) != q) continue;
        auto& [staying, leaving_q] = by_pred[static_cast<int>(p)];
        (dfa.next(q, a) == q ? staying : leaving_q).push_back(logic::letter(dfa.alphabet[a]));
        level[q] = std::max(level[q], level[p] + 1);
      }
    }
    std::vector<Formula> enter_terms;
    // prev(p) ∧ (letters from p to q), per predecessor, split by whether the
    // letter also leaves q. The terms exclude each other (one state at i − 1,
    // one letter at i), so a head reads their sum; and the since's stop
    // ¬stay ∨ enter is the leaving letters plus the staying terms alone (a
    // leaving term implies a leaving letter: plan.cc absorbs it).
    for (auto& [p, split] : by_pred) {
      for (const std::vector<Formula>* letters : {&split.first, &split.second}) {
        if (!letters->empty()) enter_terms.push_back(logic::and_(prev[p], logic::or_(*letters)));
      }
    }
    const Formula enter = name(logic::or_(enter_terms), fmt::format("enter{}", q));
    const Formula stay = name(logic::not_(logic::or_(leaving)), fmt::format("stay{}", q));
    prev[q] = name(previous(logic::since(stay, enter), stay, q == dfa.start), fmt::format("prev{}", q));
  }
  Derived out;
  out.route = "ordered";
  out.formula = name(accept_from_states(dfa, [&](auto&& emit) {
                       for (std::size_t q = 0; q < n; ++q) emit(prev[q], static_cast<int>(q));
                     }),
                     "accept");
  out.exclusive = {prev};  // the state at i − 1 is one state
  int depth = 0;
  for (int l : level) depth = std::max(depth, l);
  out.cascade.alphabet = dfa.alphabet;
  out.cascade.dfa_states = n;
  out.cascade.levels.resize(static_cast<std::size_t>(depth) + 1);
  for (std::size_t q = 0; q < n; ++q) {
    Level& l = out.cascade.levels[level[q]];
    l.depth = level[q] + 1;
    ++l.classes;
    l.tiles += 2;
    l.used_values += 1;
  }
  finish(out, names);
  return out;
}

// The product of the formula's deterministic automaton (its memory: the
// value every past operator carries to the next position) with the DFA,
// searched breadth first: the shortest word on which the formula, read at
// the word's last position (point 0 for the empty word), and the DFA
// disagree; nullopt when they never do. Every edge is checked.
std::optional<std::string> disagreement(Formula root, const automata::Dfa& dfa, std::size_t* memories,
                                        std::size_t max_states, const std::vector<std::vector<Formula>>& exclusive) {
  using logic::Op;
  const std::vector<Formula> order = logic::subformulas(root);
  std::unordered_map<Formula, int> index;
  for (std::size_t i = 0; i < order.size(); ++i) index[order[i]] = static_cast<int>(i);
  std::vector<int> carried;  // nodes with a memory bit
  std::vector<int> slot(order.size(), -1);
  for (std::size_t i = 0; i < order.size(); ++i) {
    const Op op = order[i]->op;
    if (logic::is_future(op) || op == Op::kLast || op == Op::kCompare || op == Op::kMod) {
      throw std::logic_error("disagreement: the derived formula is not past LTL");
    }
    if (logic::is_past(op) || op == Op::kFirst) {
      slot[i] = static_cast<int>(carried.size());
      carried.push_back(static_cast<int>(i));
    }
  }
  // The exclusivity facts as node indices (a member outside the DAG is never
  // read by the compiler, and so not checked).
  std::vector<std::vector<int>> groups;
  for (const std::vector<Formula>& g : exclusive) {
    std::vector<int> members;
    for (Formula f : g) {
      if (auto it = index.find(f); it != index.end()) members.push_back(it->second);
    }
    groups.push_back(std::move(members));
  }
  using Memory = std::vector<char>;
  Memory start(carried.size(), 0);
  for (std::size_t c = 0; c < carried.size(); ++c) {
    const Op op = order[carried[c]]->op;
    start[c] = op == Op::kHistorically || op == Op::kFirst;  // the values at position 1
  }
  std::vector<char> v(order.size());
  auto eval = [&](const Memory& m, char letter, Memory& next) {
    for (std::size_t i = 0; i < order.size(); ++i) {
      const logic::Node& node = *order[i];
      auto kid = [&](int j) { return v[index.at(node.kids[j])] != 0; };
      bool x = false;
      switch (node.op) {
        case Op::kTrue: x = true; break;
        case Op::kFalse: x = false; break;
        case Op::kLetter: x = node.letter == letter; break;
        case Op::kNot: x = !kid(0); break;
        case Op::kAnd:
          x = true;
          for (std::size_t j = 0; j < node.kids.size() && x; ++j) x = kid(static_cast<int>(j));
          break;
        case Op::kOr:
          for (std::size_t j = 0; j < node.kids.size() && !x; ++j) x = kid(static_cast<int>(j));
          break;
        case Op::kImplies: x = !kid(0) || kid(1); break;
        case Op::kIff: x = kid(0) == kid(1); break;
        default: x = m[slot[i]] != 0; break;  // Y O H S first: carried
      }
      v[i] = x;
    }
    for (std::size_t c = 0; c < carried.size(); ++c) {
      const logic::Node& node = *order[carried[c]];
      auto kid = [&](int j) { return v[index.at(node.kids[j])] != 0; };
      const bool self = v[carried[c]] != 0;
      switch (node.op) {
        case Op::kYesterday: next[c] = kid(0); break;
        case Op::kOnce: next[c] = kid(0) || self; break;
        case Op::kHistorically: next[c] = kid(0) && self; break;
        case Op::kSince: next[c] = kid(1) || (kid(0) && self); break;
        default: next[c] = 0; break;  // first
      }
    }
    return v.back() != 0;
  };
  const std::size_t k = dfa.alphabet.size();
  if (logic::holds_on_empty_word(root) != (dfa.accepting[dfa.start] != 0)) return std::string();
  std::map<std::pair<int, Memory>, int> ids;
  std::vector<std::pair<int, Memory>> states;
  std::vector<std::pair<int, int>> parent;  // (state, letter)
  auto word_to = [&](int s, int letter) {
    std::string w(1, dfa.alphabet[letter]);
    for (; parent[s].first >= 0; s = parent[s].first) w += dfa.alphabet[parent[s].second];
    return std::string(w.rbegin(), w.rend());
  };
  ids[{dfa.start, start}] = 0;
  states.push_back({dfa.start, start});
  parent.push_back({-1, -1});
  std::set<Memory> distinct;
  Memory next(carried.size());
  for (std::size_t s = 0; s < states.size(); ++s) {
    throw_if_interrupted();
    const auto [q, m] = states[s];
    distinct.insert(m);
    for (std::size_t a = 0; a < k; ++a) {
      const bool root_value = eval(m, dfa.alphabet[a], next);
      for (std::size_t g = 0; g < groups.size(); ++g) {
        int holding = 0;
        for (int i : groups[g]) holding += v[i];
        if (holding > 1) {
          throw std::logic_error(fmt::format("derived exclusivity group {} has {} members true at the end of \"{}\" "
                                             "(a bug in the derivation)",
                                             g, holding, sym::encode(word_to(static_cast<int>(s), static_cast<int>(a)))));
        }
      }
      const int r = dfa.next(q, a);
      if (root_value != (dfa.accepting[r] != 0)) return word_to(static_cast<int>(s), static_cast<int>(a));
      auto [it, added] = ids.emplace(std::make_pair(r, next), static_cast<int>(states.size()));
      if (added) {
        if (states.size() >= max_states) {
          throw automata::LimitError(fmt::format("the equivalence proof exceeds {} product states", max_states),
                                     Limit::kStates);
        }
        states.push_back({r, next});
        parent.push_back({static_cast<int>(s), static_cast<int>(a)});
      }
    }
  }
  if (memories) *memories = distinct.size();
  return std::nullopt;
}

}  // namespace

bool partially_ordered(const automata::Dfa& dfa) { return is_partially_ordered(dfa); }

std::optional<std::string> first_difference(const automata::Dfa& a, const automata::Dfa& b) {
  if (a.alphabet != b.alphabet) throw std::logic_error("first_difference: different alphabets");
  const std::size_t k = a.alphabet.size();
  std::map<std::pair<int, int>, std::pair<std::pair<int, int>, int>> prev;
  std::deque<std::pair<int, int>> queue{{a.start, b.start}};
  prev[{a.start, b.start}] = {{-1, -1}, -1};
  while (!queue.empty()) {
    const auto [x, y] = queue.front();
    queue.pop_front();
    if ((a.accepting[x] != 0) != (b.accepting[y] != 0)) {
      std::string word;
      for (std::pair<int, int> v{x, y}; prev.at(v).second >= 0; v = prev.at(v).first) word += a.alphabet[prev.at(v).second];
      return std::string(word.rbegin(), word.rend());
    }
    for (std::size_t s = 0; s < k; ++s) {
      const std::pair<int, int> w{a.next(x, s), b.next(y, s)};
      if (prev.count(w)) continue;
      prev[w] = {{x, y}, static_cast<int>(s)};
      queue.push_back(w);
    }
  }
  return std::nullopt;
}

Derived derive_formula(const automata::Dfa& minimal, const Limits& limits, bool prove, Route route) {
  Derived out;
  const bool ordered = route == Route::kOrdered || (route == Route::kAuto && is_partially_ordered(minimal));
  if (ordered) {
    out = ordered_formula(minimal);
  } else {
    Cascade c = holonomy(minimal, limits);
    out = Builder(minimal, c).build();
    out.route = "holonomy";
    out.cascade = std::move(c);
  }
  if (prove) {
    if (auto w = disagreement(out.formula, minimal, &out.proof_states, limits.max_states, out.exclusive)) {
      throw std::logic_error(fmt::format(
          "the formula derived from the automaton differs from it on \"{}\" (a bug in the {} construction)",
          sym::encode(*w), out.route));
    }
  } else {
    out.exclusive.clear();  // unproven: the compiler must not rely on them
  }
  return out;
}

std::string print_definitions(const Derived& d) {
  std::string out;
  for (Formula f : d.defined) {
    if (f == d.formula) continue;
    out += fmt::format("{} = {}\n", d.names.at(f), logic::to_string(f, d.names));
  }
  out += fmt::format("accept = {}\n", logic::to_string(d.formula, d.names));
  return out;
}

std::string describe_cascade(const Derived& d) {
  const Cascade& c = d.cascade;
  std::string tiles;
  for (const Level& l : c.levels) {
    if (!tiles.empty()) tiles += ' ';
    tiles += fmt::format("{}", l.used_values);
  }
  if (d.route == "ordered") {
    return fmt::format("partially ordered DFA: one reset component per state, {} levels (states per level: {}); "
                       "formula DAG {} nodes ({} temporal)",
                       c.levels.size(), tiles, d.dag_nodes, d.temporal_nodes);
  }
  return fmt::format("holonomy cascade: {} levels (tiles used per level: {}), {} image sets in {} classes, {} reachable chains; "
                     "formula DAG {} nodes ({} temporal)",
                     c.levels.size(), tiles.empty() ? "-" : tiles, c.image_sets, c.classes, c.chains.size(), d.dag_nodes,
                     d.temporal_nodes);
}

}  // namespace softhat::cascade
