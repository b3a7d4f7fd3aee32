#include "oracle/counting.h"

#include <fmt/format.h>
#include <gmpxx.h>

#include <algorithm>
#include <cfloat>
#include <cstdint>
#include <functional>
#include <limits>
#include <stdexcept>
#include <unordered_map>
#include <vector>

#include "util/error.h"
#include "util/interrupt.h"
#include "util/random.h"
#include "util/symbols.h"

namespace softhat::oracle {

namespace {

// A symbol's role: its index in the checker's symbols, or kOther.
constexpr std::size_t kOther = std::numeric_limits<std::size_t>::max();
constexpr std::int64_t kNever = std::numeric_limits<std::int64_t>::max();

// What a prefix leaves that membership of its completions depends on: a
// phase and up to two counters, their meaning the kind's (see the rules).
struct Config {
  int phase = 0;
  std::int64_t x = 0, y = 0;
  bool operator==(const Config&) const = default;
};
constexpr Config kDead{-1, 0, 0};  // no completion is accepted

struct ConfigHash {
  std::size_t operator()(const Config& c) const {
    return splitmix64(
        splitmix64(static_cast<std::uint64_t>(c.x) ^ (static_cast<std::uint64_t>(c.phase) << 56)) +
        static_cast<std::uint64_t>(c.y));
  }
};

// One kind over configurations. `step` is never given kDead; `distance`
// is a lower bound on the length of an accepted completion (kNever if
// there is none): configurations farther from acceptance than the length
// left are merged into kDead, which keeps the tables small and exact.
struct Rules {
  Config start;
  std::function<Config(const Config&, std::size_t role)> step;
  std::function<bool(const Config&)> accepting;
  std::function<std::int64_t(const Config&)> distance;
  bool relabel = false;  // dyck over several pairs (see relabeled)
};

// dyck: x = depth. The innermost open bracket is taken to be of pair 0, so
// at depth > 0 the close of pair 0 (role 1) is the matching one.
Rules dyck_rules(std::size_t pairs) {
  Rules r;
  r.step = [](const Config& c, std::size_t role) {
    if (role == kOther) return kDead;
    if (role % 2 == 0) return Config{0, c.x + 1, 0};
    return c.x > 0 && role == 1 ? Config{0, c.x - 1, 0} : kDead;
  };
  r.accepting = [](const Config& c) { return c.x == 0; };
  r.distance = [](const Config& c) { return c.x; };
  r.relabel = pairs > 1;
  return r;
}

// dyck-prefix (not strict): x = #open - #close, which must never go below
// 0, and every such word is in. prefix-majority (strict): x = #a - #b,
// which must be above 0 after every symbol (other symbols included), so
// x = 0 only for the empty word, which is out.
Rules balance_rules(bool strict) {
  Rules r;
  const std::int64_t low = strict ? 1 : 0;
  r.step = [strict, low](const Config& c, std::size_t role) {
    if (role == 0) return Config{0, c.x + 1, 0};
    if (role == kOther) return strict && c.x >= low ? c : kDead;
    return c.x - 1 >= low ? Config{0, c.x - 1, 0} : kDead;
  };
  r.accepting = [low](const Config& c) { return c.x >= low; };
  r.distance = [low](const Config& c) { return c.x >= low ? 0 : 1; };
  return r;
}

// majority: x = #a - #b; twice: x = 2 #b - #a; parity: x = #1 mod 2.
// All three ignore other symbols, as Checker::accepts does.
Rules majority_rules() {
  Rules r;
  r.step = [](const Config& c, std::size_t role) {
    return role == kOther ? c : Config{0, c.x + (role == 0 ? 1 : -1), 0};
  };
  r.accepting = [](const Config& c) { return c.x > 0; };
  r.distance = [](const Config& c) { return std::max<std::int64_t>(0, 1 - c.x); };
  return r;
}

Rules twice_rules() {
  Rules r;
  r.step = [](const Config& c, std::size_t role) {
    return role == kOther ? c : Config{0, c.x + (role == 0 ? -1 : 2), 0};
  };
  r.accepting = [](const Config& c) { return c.x == 0; };
  // an a lowers x by 1, a b raises it by 2
  r.distance = [](const Config& c) { return c.x >= 0 ? c.x : (1 - c.x) / 2; };
  return r;
}

Rules parity_rules() {
  Rules r;
  r.step = [](const Config& c, std::size_t role) {
    return role == kOther ? c : Config{0, 1 - c.x, 0};
  };
  r.accepting = [](const Config& c) { return c.x == 1; };
  r.distance = [](const Config& c) { return c.x == 1 ? 0 : 1; };
  return r;
}

// anbn over L = 2 or 3 letters, read in blocks: phase p = the block being
// read (0: a's, 1: b's, 2: c's). Before the last block x = #a and y = the
// current block's count; in the last block x = the letters still needed to
// match #a (all the rest is settled, so "ab" needs only O(n) configurations).
Rules anbn_rules(std::size_t letters) {
  Rules r;
  const int last = static_cast<int>(letters) - 1;
  r.step = [last](const Config& c, std::size_t role) {
    if (role == kOther) return kDead;
    const int j = static_cast<int>(role);
    if (j == c.phase) {
      if (c.phase == 0) return Config{0, c.x + 1, 0};
      if (c.phase == last) return c.x > 0 ? Config{last, c.x - 1, 0} : kDead;
      return c.y < c.x ? Config{c.phase, c.x, c.y + 1} : kDead;
    }
    // Only the next block may start (a skipped block would count 0, not
    // #a, and #a = 0 leaves no room for a letter of a later block), and
    // only after a complete one.
    const bool complete = c.phase == 0 || c.y == c.x;
    if (j != c.phase + 1 || c.x == 0 || !complete) return kDead;
    return j == last ? Config{last, c.x - 1, 0} : Config{j, c.x, 1};
  };
  r.accepting = [last](const Config& c) { return (c.phase == 0 || c.phase == last) && c.x == 0; };
  r.distance = [last](const Config& c) {
    if (c.phase == 0) return last * c.x;
    if (c.phase == last) return c.x;
    return (c.x - c.y) + (last - c.phase) * c.x;
  };
  return r;
}

Rules rules_for(const Checker& checker) {
  const std::string& kind = checker.kind();
  if (kind == "dyck") return dyck_rules(checker.symbols().size() / 2);
  if (kind == "anbn") return anbn_rules(checker.symbols().size());
  if (kind == "majority") return majority_rules();
  if (kind == "prefix-majority") return balance_rules(true);
  if (kind == "dyck-prefix") return balance_rules(false);
  if (kind == "twice") return twice_rules();
  if (kind == "parity") return parity_rules();
  throw std::logic_error(
      fmt::format("ClassCounter: no counting rules for checker kind '{}'", kind));
}

// Dyck over several pairs: the tables count as if the innermost open
// bracket were of pair 0 (by the symmetry between pairs the counts are the
// same whichever it is), so a role of the real word is relabeled by
// swapping pair 0 with the innermost open bracket's pair.
std::size_t relabeled(std::size_t role, std::size_t top) {
  std::size_t pair = role / 2;
  if (pair == top) {
    pair = 0;
  } else if (pair == 0) {
    pair = top;
  }
  return 2 * pair + role % 2;
}

// A uniform integer in [0, bound), bound > 0: 64-bit words from the
// generator, the top one masked to bound's bit length, redrawn if too big
// (at most 2 draws expected). The result depends only on the generator.
mpz_class uniform_below(std::mt19937_64& rng, const mpz_class& bound) {
  const std::size_t bits = mpz_sizeinbase(bound.get_mpz_t(), 2);
  std::vector<std::uint64_t> words((bits + 63) / 64);
  mpz_class x;
  do {
    for (std::uint64_t& w : words) w = rng();
    mpz_import(x.get_mpz_t(), words.size(), -1, sizeof(std::uint64_t), 0, 0, words.data());
    mpz_fdiv_r_2exp(x.get_mpz_t(), x.get_mpz_t(), bits);
  } while (x >= bound);
  return x;
}

}  // namespace

// accepted(c, r) for r = 0..max_length, row by row: row r gives every
// configuration width[r] limbs (enough for |alphabet|^r, which bounds it),
// from limbs[base[r]]: one allocation, no per-number overhead.
struct ClassCounter::Tables {
  std::string alphabet;
  std::vector<std::size_t> roles;           // per alphabet symbol
  std::vector<std::size_t> symbol_of_role;  // per checker symbol: its alphabet index
  bool relabel = false;
  std::size_t max_length = 0;
  std::size_t configs = 0;
  std::size_t start = 0;
  std::vector<std::size_t> next;  // [config * |alphabet| + symbol]
  std::vector<mpz_class> power;   // |alphabet|^r
  std::vector<std::size_t> width, base;
  std::vector<mp_limb_t> limbs;

  mp_limb_t* entry(std::size_t r, std::size_t c) { return limbs.data() + base[r] + c * width[r]; }
  const mp_limb_t* entry(std::size_t r, std::size_t c) const {
    return limbs.data() + base[r] + c * width[r];
  }

  void check(std::size_t n) const {
    if (n > max_length) {
      throw std::out_of_range(
          fmt::format("length {} beyond the class counter's tables (up to {})", n, max_length));
    }
  }
  // The completions of length r from configuration c in the class, into out.
  void completions(std::size_t r, std::size_t c, bool positive, mpz_class& out) const {
    mpz_t view;
    const mpz_srcptr accepted = mpz_roinit_n(view, entry(r, c), static_cast<mp_size_t>(width[r]));
    if (positive) {
      mpz_set(out.get_mpz_t(), accepted);
    } else {
      mpz_sub(out.get_mpz_t(), power[r].get_mpz_t(), accepted);
    }
  }
  // The configuration after symbol j of the alphabet; `top` is the pair of
  // the innermost open bracket (dyck over several pairs).
  std::size_t after(std::size_t c, std::size_t j, std::size_t top) const {
    if (relabel && roles[j] != kOther) j = symbol_of_role[relabeled(roles[j], top)];
    return next[c * alphabet.size() + j];
  }
};

namespace {

using Tables = ClassCounter::Tables;

[[noreturn]] void too_big(const Checker& checker, const Tables& t, std::size_t max_entries) {
  throw LimitError(
      fmt::format("exact counts of {} up to length {} need tables of more than {} entries",
                  checker.describe(), t.max_length, max_entries),
      Limit::kMemory);
}

// The roles of the alphabet's symbols; every checker symbol must be there.
void assign_roles(const Checker& checker, Tables& t) {
  const std::string& own = checker.symbols();
  t.symbol_of_role.assign(own.size(), kOther);
  for (std::size_t j = 0; j < t.alphabet.size(); ++j) {
    if (t.alphabet.find(t.alphabet[j]) != j) {
      throw InputError(fmt::format("counting {}: the alphabet \"{}\" repeats a symbol",
                                   checker.describe(), sym::encode(t.alphabet)));
    }
    const std::size_t role = own.find(t.alphabet[j]);
    t.roles.push_back(role == std::string::npos ? kOther : role);
    if (role != std::string::npos) t.symbol_of_role[role] = j;
  }
  for (std::size_t role = 0; role < own.size(); ++role) {
    if (t.symbol_of_role[role] == kOther) {
      throw InputError(fmt::format("counting {}: symbol '{}' is not in the alphabet \"{}\"",
                                   checker.describe(), sym::encode(std::string(1, own[role])),
                                   sym::encode(t.alphabet)));
    }
  }
}

// The row widths, then |alphabet|^r; returns the limbs of one configuration
// over all rows. Throws once one configuration alone passes the limit
// (before keeping any power: a huge max_length costs little and allocates
// nothing big).
std::size_t lay_out_rows(const Checker& checker, Tables& t, std::size_t max_entries) {
  if (t.max_length >= max_entries) too_big(checker, t, max_entries);
  const auto k = static_cast<unsigned long>(t.alphabet.size());
  std::size_t column = 0;
  mpz_class p = 1;
  for (std::size_t r = 0; r <= t.max_length; ++r, p *= k) {
    t.width.push_back(std::max<std::size_t>(1, mpz_size(p.get_mpz_t())));
    column += t.width.back();
    if (column > max_entries) too_big(checker, t, max_entries);
  }
  p = 1;
  for (std::size_t r = 0; r <= t.max_length; ++r, p *= k) t.power.push_back(p);
  return column;
}

// The configurations reachable in at most max_length steps (those that can
// still be accepted), numbered breadth-first after kDead = 0, and their
// successors. Returns which of them accept.
std::vector<char> explore(const Checker& checker, const Rules& rules, Tables& t, std::size_t column,
                          std::size_t max_entries) {
  const std::size_t n = t.max_length, k = t.alphabet.size();
  std::vector<Config> configs{kDead};
  std::vector<std::size_t> first{0};  // the step at which each was first reached
  std::unordered_map<Config, std::size_t, ConfigHash> index{{kDead, 0}};
  auto admit = [&](const Config& c, std::size_t steps) -> std::size_t {
    if (const auto it = index.find(c); it != index.end()) return it->second;
    const std::int64_t d = rules.distance(c);
    // Breadth-first, so c was not reached sooner: at most n - steps symbols are left.
    if (steps > n || d == kNever || static_cast<std::uint64_t>(d) > n - steps) return 0;
    if (configs.size() + 1 > max_entries / column) too_big(checker, t, max_entries);
    index.emplace(c, configs.size());
    configs.push_back(c);
    first.push_back(steps);
    return configs.size() - 1;
  };
  t.start = admit(rules.start, 0);
  for (std::size_t c = 0; c < configs.size(); ++c) {
    if ((c & 4095) == 0) throw_if_interrupted();
    for (std::size_t j = 0; j < k; ++j) {
      t.next.push_back(c == 0 ? 0 : admit(rules.step(configs[c], t.roles[j]), first[c] + 1));
    }
  }
  t.configs = configs.size();
  std::vector<char> accepting(t.configs, 0);
  for (std::size_t c = 1; c < t.configs; ++c) accepting[c] = rules.accepting(configs[c]);
  return accepting;
}

// accepted(c, r) = sum over the symbols of accepted(next, r - 1), with the
// symbols that lead to the same configuration taken together.
void fill(Tables& t, const std::vector<char>& accepting) {
  const std::size_t k = t.alphabet.size();
  std::vector<std::size_t> moves_from{0};
  std::vector<std::pair<std::size_t, mp_limb_t>> moves;  // (successor, how many symbols)
  for (std::size_t c = 0; c < t.configs; ++c) {
    std::vector<std::size_t> to(t.next.begin() + c * k, t.next.begin() + (c + 1) * k);
    std::sort(to.begin(), to.end());
    for (std::size_t i = 0; i < k; ++i) {
      if (to[i] == 0) continue;  // dead adds nothing
      if (i > 0 && to[i] == to[i - 1]) {
        ++moves.back().second;
      } else {
        moves.emplace_back(to[i], 1);
      }
    }
    moves_from.push_back(moves.size());
  }
  std::size_t total = 0;
  for (std::size_t r = 0; r <= t.max_length; ++r) {
    t.base.push_back(total);
    total += t.configs * t.width[r];
  }
  t.limbs.assign(total, 0);
  for (std::size_t c = 0; c < t.configs; ++c) t.entry(0, c)[0] = accepting[c] ? 1 : 0;
  for (std::size_t r = 1; r <= t.max_length; ++r) {
    throw_if_interrupted();
    const std::size_t w = t.width[r], below = t.width[r - 1];
    for (std::size_t c = 1; c < t.configs; ++c) {
      mp_limb_t* out = t.entry(r, c);
      for (std::size_t m = moves_from[c]; m < moves_from[c + 1]; ++m) {
        const mp_limb_t carry = mpn_addmul_1(out, t.entry(r - 1, moves[m].first),
                                             static_cast<mp_size_t>(below), moves[m].second);
        // The sum stays below |alphabet|^r, so a carry always has room.
        if (carry != 0 &&
            (w == below ||
             mpn_add_1(out + below, out + below, static_cast<mp_size_t>(w - below), carry) != 0)) {
          throw std::logic_error("ClassCounter: a count overflows its row");
        }
      }
    }
  }
}

}  // namespace

ClassCounter::ClassCounter(const Checker& checker, std::size_t max_length, std::size_t max_entries)
    : ClassCounter(checker, checker.symbols(), max_length, max_entries) {}

ClassCounter::ClassCounter(const Checker& checker, std::string alphabet, std::size_t max_length,
                           std::size_t max_entries) {
  auto t = std::make_shared<Tables>();
  t->alphabet = std::move(alphabet);
  t->max_length = max_length;
  assign_roles(checker, *t);
  const Rules rules = rules_for(checker);
  t->relabel = rules.relabel;
  const std::size_t column = lay_out_rows(checker, *t, max_entries);
  const std::vector<char> accepting = explore(checker, rules, *t, column, max_entries);
  fill(*t, accepting);
  tables_ = std::move(t);
}

std::string ClassCounter::count(std::size_t n, bool positive) const {
  tables_->check(n);
  mpz_class v;
  tables_->completions(n, tables_->start, positive, v);
  return v.get_str(10);
}

double ClassCounter::approx_count(std::size_t n, bool positive) const {
  tables_->check(n);
  mpz_class v;
  tables_->completions(n, tables_->start, positive, v);
  // mpz_get_d truncates; past 2^DBL_MAX_EXP its result is system dependent.
  if (mpz_sizeinbase(v.get_mpz_t(), 2) > static_cast<std::size_t>(DBL_MAX_EXP)) {
    return std::numeric_limits<double>::max();
  }
  return v.get_d();
}

bool ClassCounter::empty(std::size_t n, bool positive) const {
  tables_->check(n);
  mpz_class v;
  tables_->completions(n, tables_->start, positive, v);
  return sgn(v) == 0;
}

std::optional<std::string> ClassCounter::sample(std::mt19937_64& rng, std::size_t n,
                                                bool positive) const {
  const Tables& t = *tables_;
  t.check(n);
  mpz_class part;
  t.completions(n, t.start, positive, part);
  if (sgn(part) == 0) return std::nullopt;
  mpz_class rank = uniform_below(rng, part);
  std::string word;
  word.reserve(n);
  std::vector<std::size_t> open;  // the pairs of the open brackets, for relabeling
  std::size_t c = t.start;
  for (std::size_t i = 0; i < n; ++i) {
    // rank < the class's completions of length n - i from c, which are the
    // sum over the symbols j of those of length n - i - 1 after j.
    const std::size_t top = open.empty() ? 0 : open.back();
    std::size_t j = 0, to = 0;
    for (; j < t.alphabet.size(); ++j) {
      to = t.after(c, j, top);
      t.completions(n - i - 1, to, positive, part);
      if (rank < part) break;
      rank -= part;
    }
    if (j == t.alphabet.size())
      throw std::logic_error("ClassCounter: a rank past the class's count");
    word += t.alphabet[j];
    if (t.relabel && t.roles[j] != kOther) {
      if (t.roles[j] % 2 == 0) {
        open.push_back(t.roles[j] / 2);
      } else if (!open.empty()) {
        open.pop_back();  // the matching one, or the word is dead and the stack no longer matters
      }
    }
    c = to;
  }
  return word;
}

const std::string& ClassCounter::alphabet() const { return tables_->alphabet; }
std::size_t ClassCounter::max_length() const { return tables_->max_length; }
std::size_t ClassCounter::configurations() const { return tables_->configs; }

}  // namespace softhat::oracle
