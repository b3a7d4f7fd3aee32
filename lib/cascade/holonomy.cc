#include "cascade/holonomy.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <deque>
#include <functional>
#include <map>
#include <stdexcept>
#include <unordered_map>

#include "util/interrupt.h"
#include "util/symbols.h"

namespace softhat::cascade {
namespace {

using automata::Dfa;
using automata::LimitError;

// The skeleton's sets as bit vectors of W 64-bit words, interned.
class SetTable {
 public:
  explicit SetTable(std::size_t n) : n_(n), w_((n + 63) / 64) {}

  std::size_t words() const { return w_; }
  std::size_t size() const { return count_.size(); }
  const std::uint64_t* bits(int id) const { return pool_.data() + static_cast<std::size_t>(id) * w_; }
  int count(int id) const { return count_[id]; }
  bool has(int id, int q) const { return (bits(id)[q / 64] >> (q % 64)) & 1; }

  // The id of a set, adding it if new; `added` tells which.
  int intern(const std::vector<std::uint64_t>& b, bool* added = nullptr) {
    std::string key(reinterpret_cast<const char*>(b.data()), w_ * 8);
    auto [it, inserted] = ids_.emplace(std::move(key), static_cast<int>(count_.size()));
    if (added) *added = inserted;
    if (inserted) {
      pool_.insert(pool_.end(), b.begin(), b.end());
      int c = 0;
      for (std::uint64_t x : b) c += std::popcount(x);
      count_.push_back(c);
    }
    return it->second;
  }
  std::optional<int> find(const std::vector<std::uint64_t>& b) const {
    auto it = ids_.find(std::string(reinterpret_cast<const char*>(b.data()), w_ * 8));
    if (it == ids_.end()) return std::nullopt;
    return it->second;
  }
  // a ⊆ b
  bool subset(int a, int b) const {
    const std::uint64_t *x = bits(a), *y = bits(b);
    for (std::size_t i = 0; i < w_; ++i) {
      if (x[i] & ~y[i]) return false;
    }
    return true;
  }
  std::vector<int> members(int id) const {
    std::vector<int> out;
    const std::uint64_t* x = bits(id);
    for (std::size_t i = 0; i < w_; ++i) {
      for (std::uint64_t v = x[i]; v; v &= v - 1) out.push_back(static_cast<int>(i * 64 + std::countr_zero(v)));
    }
    return out;
  }

 private:
  std::size_t n_, w_;
  std::vector<std::uint64_t> pool_;
  std::vector<int> count_;
  std::unordered_map<std::string, int> ids_;
};

class Decomposer {
 public:
  Decomposer(const Dfa& dfa, const Limits& limits)
      : dfa_(dfa), n_(dfa.states()), k_(dfa.alphabet.size()), limits_(limits), sets_(n_) {}

  Cascade run() {
    if (n_ < 2) {  // one state: every word or none; no levels
      Cascade c;
      c.alphabet = dfa_.alphabet;
      c.dfa_states = n_;
      c.chains = {{}};
      c.chain_state = {dfa_.start};
      c.prefix_parent = {-1};
      c.prefix_value = {kSkipped};
      c.prefix_level = {0};
      return c;
    }
    orbit();
    singletons();
    components();
    check_aperiodic();
    depths();
    return chains();
  }

 private:
  void spend(std::size_t work) {
    work_ += work;
    if (work_ > limits_.max_work) {
      throw LimitError(fmt::format("the holonomy decomposition of this {}-state DFA needs more than {} steps",
                                   n_, limits_.max_work));
    }
  }

  std::vector<std::uint64_t> image_bits(int id, std::size_t a) const {
    std::vector<std::uint64_t> b(sets_.words(), 0);
    for (int q : sets_.members(id)) {
      const int r = dfa_.next(q, a);
      b[r / 64] |= std::uint64_t{1} << (r % 64);
    }
    return b;
  }

  // The orbit of Q under the letters: every image Q·w.
  void orbit() {
    std::vector<std::uint64_t> all(sets_.words(), 0);
    for (std::size_t q = 0; q < n_; ++q) all[q / 64] |= std::uint64_t{1} << (q % 64);
    top_ = sets_.intern(all);
    for (std::size_t i = 0; i < sets_.size(); ++i) {
      throw_if_interrupted();
      spend(k_ * (static_cast<std::size_t>(sets_.count(static_cast<int>(i))) + sets_.words()));
      for (std::size_t a = 0; a < k_; ++a) {
        const int img = sets_.intern(image_bits(static_cast<int>(i), a));
        next_.push_back(img);
      }
      if (sets_.size() > limits_.max_sets) {
        throw LimitError(fmt::format("the DFA has more than {} image sets (its holonomy skeleton is too large)",
                                     limits_.max_sets));
      }
    }
    orbit_size_ = sets_.size();
  }

  void singletons() {
    single_.assign(n_, -1);
    for (std::size_t q = 0; q < n_; ++q) {
      std::vector<std::uint64_t> b(sets_.words(), 0);
      b[q / 64] |= std::uint64_t{1} << (q % 64);
      single_[q] = sets_.intern(b);
    }
  }

  bool singleton(int id) const { return sets_.count(id) == 1; }
  int image(int id, std::size_t a) const {
    if (singleton(id)) return single_[dfa_.next(sets_.members(id)[0], a)];
    return next_[static_cast<std::size_t>(id) * k_ + a];
  }

  // Strongly connected components of the orbit graph on the sets with two
  // or more states (Tarjan, iterative); scc_order_[c] is c's completion
  // index (sinks first).
  void components() {
    const int m = static_cast<int>(orbit_size_);
    comp_.assign(sets_.size(), -1);
    std::vector<int> index(m, -1), low(m, 0), stack;
    std::vector<char> on(m, 0);
    int counter = 0;
    struct Frame {
      int v;
      std::size_t a;
    };
    for (int s = 0; s < m; ++s) {
      if (index[s] >= 0 || singleton(s)) continue;
      std::vector<Frame> frames{{s, 0}};
      index[s] = low[s] = counter++;
      stack.push_back(s);
      on[s] = 1;
      while (!frames.empty()) {
        Frame& f = frames.back();
        if (f.a < k_) {
          const int w = next_[static_cast<std::size_t>(f.v) * k_ + f.a++];
          if (singleton(w)) continue;
          if (index[w] < 0) {
            index[w] = low[w] = counter++;
            stack.push_back(w);
            on[w] = 1;
            frames.push_back({w, 0});
          } else if (on[w]) {
            low[f.v] = std::min(low[f.v], index[w]);
          }
          continue;
        }
        const int v = f.v;
        frames.pop_back();
        if (!frames.empty()) low[frames.back().v] = std::min(low[frames.back().v], low[v]);
        if (low[v] == index[v]) {
          const int c = static_cast<int>(members_.size());
          members_.emplace_back();
          for (;;) {
            const int w = stack.back();
            stack.pop_back();
            on[w] = 0;
            comp_[w] = c;
            members_[c].push_back(w);
            if (w == v) break;
          }
          std::sort(members_[c].begin(), members_[c].end());
        }
      }
    }
  }

  // Representatives and the maps f_P: rep -> P (by positions of rep's
  // sorted members); the aperiodicity check on every edge inside a class.
  void check_aperiodic() {
    fmap_.assign(sets_.size(), {});
    path_.assign(sets_.size(), {-1, -1});
    for (std::size_t c = 0; c < members_.size(); ++c) {
      throw_if_interrupted();
      const int rep = members_[c][0];
      fmap_[rep] = sets_.members(rep);
      std::deque<int> queue{rep};
      while (!queue.empty()) {
        const int p = queue.front();
        queue.pop_front();
        spend(k_ * fmap_[p].size());
        for (std::size_t a = 0; a < k_; ++a) {
          const int t = next_[static_cast<std::size_t>(p) * k_ + a];
          if (singleton(t) || comp_[t] != static_cast<int>(c)) continue;
          std::vector<int> mapped(fmap_[p].size());
          for (std::size_t j = 0; j < mapped.size(); ++j) mapped[j] = dfa_.next(fmap_[p][j], a);
          if (fmap_[t].empty()) {
            fmap_[t] = std::move(mapped);
            path_[t] = {p, static_cast<int>(a)};
            queue.push_back(t);
          } else if (fmap_[t] != mapped) {
            refuse(rep, p, a, t, mapped);
          }
        }
      }
    }
  }

  // The word of the BFS tree from the representative to p.
  std::string word_to(int p) const {
    std::string w;
    while (path_[p].first >= 0) {
      w += dfa_.alphabet[path_[p].second];
      p = path_[p].first;
    }
    std::reverse(w.begin(), w.end());
    return w;
  }

  [[noreturn]] void refuse(int rep, int p, std::size_t a, int t, const std::vector<int>& mapped) {
    // u = (rep -> p) a (t -> rep) maps rep onto itself, not as the identity.
    std::string back;
    {
      std::map<int, std::pair<int, int>> from;  // BFS from t to rep inside the class
      std::deque<int> queue{t};
      from[t] = {-1, -1};
      while (!queue.empty() && !from.count(rep)) {
        const int v = queue.front();
        queue.pop_front();
        for (std::size_t b = 0; b < k_; ++b) {
          const int w = next_[static_cast<std::size_t>(v) * k_ + b];
          if (singleton(w) || comp_[w] != comp_[t] || from.count(w)) continue;
          from[w] = {v, static_cast<int>(b)};
          queue.push_back(w);
        }
      }
      for (int v = rep; from.at(v).first >= 0; v = from.at(v).first) back += dfa_.alphabet[from.at(v).second];
      std::reverse(back.begin(), back.end());
    }
    (void)mapped;
    auto run = [&](int q, const std::string& w) {
      for (char ch : w) q = dfa_.next(q, dfa_.alphabet.find(ch));
      return q;
    };
    // (rep -> p) a (t -> rep) and (rep -> t) (t -> rep) both map rep onto
    // itself and differ on it (a o f_p != f_t), so one is not the identity.
    std::string u = word_to(p) + dfa_.alphabet[a] + back;
    bool identity = true;
    for (int s : sets_.members(rep)) identity = identity && run(s, u) == s;
    if (identity) u = word_to(t) + back;
    // A state of rep on a cycle of u of length > 1.
    int q = -1;
    std::size_t period = 0;
    for (int s : sets_.members(rep)) {
      if (run(s, u) == s) continue;
      std::size_t len = 1;
      for (int r = run(s, u); r != s; r = run(r, u)) ++len;
      q = s, period = len;
      break;
    }
    if (q < 0) throw std::logic_error("holonomy: a non-identity stabiliser fixed every state");
    StarFreeWitness w;
    w.u = u;
    w.period = period;
    w.k = 0;
    w.x = shortest_word(dfa_.start, q);
    w.y = distinguishing_word(q, run(q, u));
    throw NotStarFree(fmt::format("the language is not star-free: u = \"{}\" permutes {} states in a cycle of length "
                                  "{}, so x u^k y and x u^(k+1) y differ with x = \"{}\", y = \"{}\", k = 0 "
                                  "(and again at every k + {})",
                                  sym::encode(w.u), period, period, sym::encode(w.x), sym::encode(w.y), period),
                      w);
  }

  std::string shortest_word(int from, int to) const {
    std::vector<std::pair<int, int>> prev(n_, {-2, -1});
    std::deque<int> queue{from};
    prev[from] = {-1, -1};
    while (!queue.empty()) {
      const int v = queue.front();
      queue.pop_front();
      if (v == to) break;
      for (std::size_t a = 0; a < k_; ++a) {
        const int w = dfa_.next(v, a);
        if (prev[w].first != -2) continue;
        prev[w] = {v, static_cast<int>(a)};
        queue.push_back(w);
      }
    }
    std::string word;
    for (int v = to; prev[v].first >= 0; v = prev[v].first) word += dfa_.alphabet[prev[v].second];
    std::reverse(word.begin(), word.end());
    return word;
  }

  // The shortest word accepted from exactly one of p, q (a minimal DFA has one).
  std::string distinguishing_word(int p, int q) const {
    std::map<std::pair<int, int>, std::pair<std::pair<int, int>, int>> prev;
    std::deque<std::pair<int, int>> queue{{p, q}};
    prev[{p, q}] = {{-1, -1}, -1};
    while (!queue.empty()) {
      auto [x, y] = queue.front();
      queue.pop_front();
      if (dfa_.accepting[x] != dfa_.accepting[y]) {
        std::string word;
        for (std::pair<int, int> v{x, y}; prev.at(v).second >= 0; v = prev.at(v).first) {
          word += dfa_.alphabet[prev.at(v).second];
        }
        std::reverse(word.begin(), word.end());
        return word;
      }
      for (std::size_t a = 0; a < k_; ++a) {
        std::pair<int, int> w{dfa_.next(x, a), dfa_.next(y, a)};
        if (prev.count(w)) continue;
        prev[w] = {{x, y}, static_cast<int>(a)};
        queue.push_back(w);
      }
    }
    throw std::logic_error("holonomy: two states of the minimal DFA are equivalent");
  }

  // Depth: the longest path from Q's class in the DAG of classes whose
  // edges are orbit edges between classes and proper containments.
  void depths() {
    const std::size_t c = members_.size();
    std::vector<std::vector<int>> succ(c);
    // Proper subsets of every non-singleton orbit set, singletons included.
    subsets_.assign(sets_.size(), {});
    for (std::size_t a = 0; a < orbit_size_; ++a) {
      if (singleton(static_cast<int>(a))) continue;
      throw_if_interrupted();
      spend(sets_.size() * sets_.words());
      for (std::size_t b = 0; b < sets_.size(); ++b) {
        if (a == b || sets_.count(static_cast<int>(b)) >= sets_.count(static_cast<int>(a))) continue;
        if (!sets_.subset(static_cast<int>(b), static_cast<int>(a))) continue;
        subsets_[a].push_back(static_cast<int>(b));
        if (!singleton(static_cast<int>(b))) succ[comp_[a]].push_back(comp_[b]);
      }
      for (std::size_t l = 0; l < k_; ++l) {
        const int t = next_[a * k_ + l];
        if (!singleton(t) && comp_[t] != comp_[a]) succ[comp_[a]].push_back(comp_[t]);
      }
    }
    // Every edge goes to a smaller set, or (orbit edges) to a class of the
    // same size that Tarjan completed earlier: (size descending, completion
    // descending) is a topological order.
    std::vector<int> order(c);
    for (std::size_t i = 0; i < c; ++i) order[i] = static_cast<int>(i);
    std::sort(order.begin(), order.end(), [&](int x, int y) {
      const int sx = sets_.count(members_[x][0]), sy = sets_.count(members_[y][0]);
      return sx != sy ? sx > sy : x > y;
    });
    std::vector<int> rank(c);
    for (std::size_t i = 0; i < c; ++i) rank[order[i]] = static_cast<int>(i);
    depth_of_class_.assign(c, 0);
    depth_of_class_[comp_[top_]] = 1;
    for (int i : order) {
      if (depth_of_class_[i] == 0) throw std::logic_error("holonomy: a class unreachable from Q");
      for (int s : succ[i]) {
        if (rank[s] <= rank[i]) throw std::logic_error("holonomy: the class order is not topological");
        depth_of_class_[s] = std::max(depth_of_class_[s], depth_of_class_[i] + 1);
      }
    }
    deepest_ = 0;
    for (int d : depth_of_class_) deepest_ = std::max(deepest_, d);
  }

  int depth(int set) const { return singleton(set) ? deepest_ + 1 : depth_of_class_[comp_[set]]; }

  const std::vector<int>& tiles(int set) {
    auto it = tiles_.find(set);
    if (it != tiles_.end()) return it->second;
    const std::vector<int>& sub = subsets_[set];
    std::vector<int> out;
    spend(sub.size() * sub.size() / 4 + 1);
    for (int b : sub) {
      bool maximal = true;
      for (int c : sub) {
        if (c != b && sets_.count(c) > sets_.count(b) && sets_.subset(b, c)) {
          maximal = false;
          break;
        }
      }
      if (maximal) out.push_back(b);
    }
    std::sort(out.begin(), out.end());
    return tiles_.emplace(set, std::move(out)).first->second;
  }

  // The index, among the tiles of P's representative, of the tile that f_P
  // maps onto `tile` (a tile of P).
  int rep_tile(int tile, int p) {
    const int rep = members_[comp_[p]][0];
    const std::vector<int>& rt = tiles(rep);
    auto key = std::make_pair(tile, p);
    if (auto it = rep_tile_.find(key); it != rep_tile_.end()) return it->second;
    const std::vector<int> rep_members = sets_.members(rep);
    for (std::size_t t = 0; t < rt.size(); ++t) {
      std::vector<std::uint64_t> b(sets_.words(), 0);
      for (int q : sets_.members(rt[t])) {
        const auto pos = std::lower_bound(rep_members.begin(), rep_members.end(), q) - rep_members.begin();
        const int r = fmap_[p][pos];
        b[r / 64] |= std::uint64_t{1} << (r % 64);
      }
      auto id = sets_.find(b);
      if (!id) throw std::logic_error("holonomy: the image of a tile is not in the skeleton");
      rep_tile_[{*id, p}] = static_cast<int>(t);
    }
    auto it = rep_tile_.find(key);
    if (it == rep_tile_.end()) throw std::logic_error("holonomy: a tile is not the image of a representative's tile");
    return it->second;
  }

  int value_id(int level, int cls, int tile) {
    auto [it, added] = values_[level].emplace(std::make_pair(cls, tile), static_cast<int>(values_[level].size()));
    (void)added;
    return it->second;
  }

  // The first tile of `set` that contains `sub`.
  int tile_containing(int set, int sub) {
    for (int t : tiles(set)) {
      if (sets_.subset(sub, t)) return t;
    }
    throw std::logic_error("holonomy: no tile contains a subset");
  }

  std::vector<int> encode(const std::vector<int>& chain) {
    std::vector<int> enc(deepest_, kSkipped);
    for (std::size_t j = 0; j + 1 < chain.size(); ++j) {
      const int d = depth(chain[j]);
      enc[d - 1] = value_id(d - 1, comp_[chain[j]], rep_tile(chain[j + 1], chain[j]));
    }
    return enc;
  }

  // The chain for state q: from Q, always the first tile containing q.
  std::vector<int> chain_of(int q) {
    std::vector<int> chain{top_};
    while (!singleton(chain.back())) chain.push_back(tile_containing(chain.back(), single_[q]));
    return chain;
  }

  // The chain dominating the images of `chain` under letter a.
  std::vector<int> step(const std::vector<int>& chain, std::size_t a) {
    std::vector<int> images;
    for (int s : chain) {
      const int t = image(s, a);
      if (images.empty() || images.back() != t) images.push_back(t);
    }
    std::vector<int> out{top_};
    std::size_t next = images.front() == top_ ? 1 : 0;
    while (!singleton(out.back())) {
      const int target = images[next];
      const std::vector<int>& ts = tiles(out.back());
      if (std::binary_search(ts.begin(), ts.end(), target)) {
        out.push_back(target);
        ++next;
      } else {
        out.push_back(tile_containing(out.back(), target));
      }
    }
    return out;
  }

  // For each level, the chain set covering it: the first set of depth >= d.
  std::vector<int> stages(const std::vector<int>& chain) const {
    std::vector<int> out(deepest_);
    std::size_t j = 0;
    for (int d = 1; d <= deepest_; ++d) {
      while (depth(chain[j]) < d) ++j;
      out[d - 1] = chain[j];
    }
    return out;
  }

  int prefix_child(Cascade& c, int parent, int value, int level) {
    auto key = std::make_pair(parent, value);
    auto [it, added] = prefix_ids_.emplace(key, static_cast<int>(c.prefix_parent.size()));
    if (added) {
      c.prefix_parent.push_back(parent);
      c.prefix_value.push_back(value);
      c.prefix_level.push_back(level);
    }
    return it->second;
  }

  Cascade chains() {
    Cascade c;
    c.alphabet = dfa_.alphabet;
    c.dfa_states = n_;
    for (std::size_t i = 0; i < orbit_size_; ++i) c.image_sets += !singleton(static_cast<int>(i));
    c.classes = members_.size();
    values_.assign(deepest_, {});
    c.prefix_parent = {-1};
    c.prefix_value = {kSkipped};
    c.prefix_level = {0};
    std::map<std::vector<int>, std::size_t> ids;
    std::vector<std::vector<int>> chain_sets;
    auto intern = [&](std::vector<int> chain) -> std::size_t {
      std::vector<int> enc = encode(chain);
      auto [it, added] = ids.emplace(enc, c.chains.size());
      if (added) {
        if (c.chains.size() >= limits_.max_chains) {
          throw LimitError(fmt::format("the holonomy cascade has more than {} reachable chains", limits_.max_chains));
        }
        c.chain_state.push_back(sets_.members(chain.back())[0]);
        c.chains.push_back(std::move(enc));
        chain_sets.push_back(std::move(chain));
      }
      return it->second;
    };
    c.initial_chain = intern(chain_of(dfa_.start));
    // table[level][(letter, prefix)] = action
    std::vector<std::map<std::pair<int, int>, int>> table(deepest_);
    for (std::size_t i = 0; i < c.chains.size(); ++i) {
      throw_if_interrupted();
      const std::vector<int> from = chain_sets[i];
      const std::vector<int> from_enc = c.chains[i];
      const std::vector<int> from_stage = stages(from);
      const std::int32_t q = c.chain_state[i];
      for (std::size_t a = 0; a < k_; ++a) {
        spend(from.size() * sets_.words() * 4);
        std::vector<int> to = step(from, a);
        const std::size_t j = intern(to);
        if (c.chain_state[j] != dfa_.next(q, a)) throw std::logic_error("holonomy: the cascade does not cover the DFA");
        const std::vector<int> to_stage = stages(chain_sets[j]);
        const std::vector<int>& to_enc = c.chains[j];
        int prefix = 0;
        for (int d = 1; d <= deepest_; ++d) {
          int action;
          if (to_enc[d - 1] == kSkipped) {
            action = kSkipped;
          } else if (image(from_stage[d - 1], a) == to_stage[d - 1]) {
            if (to_enc[d - 1] != from_enc[d - 1]) {
              throw std::logic_error("holonomy: a level is permuted (the holonomy group is not trivial)");
            }
            action = kIdentity;
          } else {
            action = to_enc[d - 1];
          }
          auto [it, added] = table[d - 1].emplace(std::make_pair(static_cast<int>(a), prefix), action);
          if (!added && it->second != action) {
            throw std::logic_error(fmt::format("holonomy: level {} depends on a lower level", d));
          }
          prefix = prefix_child(c, prefix, from_enc[d - 1], d);
        }
      }
    }
    // Prefixes of the target chains too (the acceptance reads the current chain).
    for (const auto& enc : c.chains) {
      int prefix = 0;
      for (int d = 1; d <= deepest_; ++d) prefix = prefix_child(c, prefix, enc[d - 1], d);
    }
    c.actions.assign(deepest_, {});
    for (int d = 0; d < deepest_; ++d) {
      for (const auto& [key, action] : table[d]) c.actions[d].push_back({key.first, key.second, action});
    }
    c.levels.resize(deepest_);
    for (int d = 1; d <= deepest_; ++d) {
      Level& l = c.levels[d - 1];
      l.depth = d;
      for (std::size_t cls = 0; cls < members_.size(); ++cls) {
        if (depth_of_class_[cls] != d) continue;
        ++l.classes;
        l.tiles += tiles(members_[cls][0]).size();
      }
      l.used_values = values_[d - 1].size();
    }
    return c;
  }

  const Dfa& dfa_;
  std::size_t n_, k_;
  Limits limits_;
  SetTable sets_;
  std::size_t work_ = 0;
  int top_ = 0;
  std::size_t orbit_size_ = 0;
  std::vector<int> next_;    // orbit edges: set * k + letter
  std::vector<int> single_;  // {q}
  std::vector<int> comp_;    // class of each orbit set (-1: singleton)
  std::vector<std::vector<int>> members_;
  std::vector<std::vector<int>> fmap_;
  std::vector<std::pair<int, int>> path_;
  std::vector<std::vector<int>> subsets_;
  std::vector<int> depth_of_class_;
  int deepest_ = 0;
  std::unordered_map<int, std::vector<int>> tiles_;
  std::map<std::pair<int, int>, int> rep_tile_;
  std::vector<std::map<std::pair<int, int>, int>> values_;
  std::map<std::pair<int, int>, int> prefix_ids_;
};

}  // namespace

Cascade holonomy(const automata::Dfa& minimal, const Limits& limits) { return Decomposer(minimal, limits).run(); }

}  // namespace softhat::cascade
