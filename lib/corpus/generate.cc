#include "corpus/generate.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <functional>
#include <memory>
#include <set>
#include <unordered_set>

#include "automata/border.h"
#include "automata/count.h"
#include "logic/eval.h"
#include "oracle/counting.h"
#include "task/khop.h"
#include "util/error.h"
#include "util/interrupt.h"
#include "util/parallel.h"
#include "util/symbols.h"
#include "words/words.h"

namespace softhat::corpus {

Split parse_split(const std::string& text) {
  auto bad = [&](const std::string& why) -> void {
    throw InputError(fmt::format("split '{}': {} (expected NAME:LENGTHS[:COUNT][:uniform|border], e.g. "
                                 "train:20-29:1000 or test:31-50:500:border, or LENGTHS alone)",
                                 text, why));
  };
  std::vector<std::string> parts;
  for (std::size_t start = 0;;) {
    const std::size_t colon = text.find(':', start);
    parts.push_back(text.substr(start, colon == std::string::npos ? std::string::npos : colon - start));
    if (colon == std::string::npos) break;
    start = colon + 1;
  }
  Split s;
  if (parts.size() == 1) {
    s.name = "all";
  } else {
    s.name = parts[0];
    parts.erase(parts.begin());
  }
  if (s.name.empty() || s.name.find_first_of("/\\ \t.") != std::string::npos) bad("a name without / \\ . or spaces");
  if (parts.size() > 3) bad("too many fields");
  try {
    s.lengths = words::parse_length_list(parts[0], 1'000'000);
  } catch (const InputError& e) {
    bad(e.what());
  }
  std::sort(s.lengths.begin(), s.lengths.end());
  for (std::size_t i = 1; i < parts.size(); ++i) {
    const std::string& f = parts[i];
    if (f == "uniform" || f == "border") {
      if (s.negatives) bad("two negative kinds");
      s.negatives = f == "border" ? Negatives::kBorder : Negatives::kUniform;
    } else if (!f.empty() && f.find_first_not_of("0123456789") == std::string::npos && i == 1 && f.size() < 12) {
      s.count = std::stoull(f);
    } else {
      bad(fmt::format("'{}' is neither a word count nor uniform|border", f));
    }
  }
  return s;
}

std::string format_lengths(const std::vector<std::size_t>& lengths) {
  std::vector<std::string> items;
  for (std::size_t i = 0; i < lengths.size();) {
    std::size_t j = i;
    while (j + 1 < lengths.size() && lengths[j + 1] == lengths[j] + 1) ++j;
    items.push_back(j == i ? fmt::format("{}", lengths[i]) : fmt::format("{}-{}", lengths[i], lengths[j]));
    i = j + 1;
  }
  return fmt::format("{}", fmt::join(items, ","));
}

std::size_t words_at(const GenerateOptions& o, const Split& s, std::size_t n) {
  const auto it = std::find(s.lengths.begin(), s.lengths.end(), n);
  if (it == s.lengths.end()) return 0;
  if (!s.count) return o.per_length;
  // Spread evenly; the first (count mod lengths) lengths take one more.
  const std::size_t k = s.lengths.size(), index = static_cast<std::size_t>(it - s.lengths.begin());
  return *s.count / k + (index < *s.count % k ? 1 : 0);
}

Negatives negatives_of(const GenerateOptions& o, const Split& s) { return s.negatives.value_or(o.negatives); }

std::string describe_shortage(const Shortage& s) {
  const std::string exist = s.exists.empty() ? "" : fmt::format(" ({} exist)", s.exists);
  return fmt::format("split {} length {}: found {} {} words of the {} wanted{}", s.split, s.length, s.got, s.kind,
                     s.wanted, exist);
}

std::vector<std::string> edit_neighbours(const std::string& w, const std::string& alphabet) {
  std::set<std::string, sym::CodePointLess> out;
  for (std::size_t i = 0; i < w.size(); ++i) {
    std::string d = w;
    d.erase(i, 1);
    out.insert(d);
    for (char c : alphabet) {
      if (c == w[i]) continue;
      std::string s = w;
      s[i] = c;
      out.insert(s);
    }
  }
  for (std::size_t i = 0; i <= w.size(); ++i) {
    for (char c : alphabet) {
      std::string s = w;
      s.insert(s.begin() + static_cast<std::ptrdiff_t>(i), c);
      out.insert(s);
    }
  }
  out.erase(w);  // an insertion next to an equal symbol can equal a... never w itself, but be safe
  return {out.begin(), out.end()};
}

std::vector<Split> mlregtest_splits(const std::string& name, std::size_t count) {
  std::vector<Split> splits;
  const std::vector<std::size_t> short_lengths = words::parse_length_list("20-29"),
                                 long_lengths = words::parse_length_list("31-50");
  for (const char* split : {"Train", "Dev", "TestSR", "TestSA", "TestLR", "TestLA"}) {
    const std::string s = split;
    const bool border = s == "TestSA" || s == "TestLA";
    const bool longer = s == "TestLR" || s == "TestLA";
    splits.push_back({.name = s,
                      .lengths = longer ? long_lengths : short_lengths,
                      .count = count,
                      .negatives = border ? Negatives::kBorder : Negatives::kUniform,
                      .file = name + "_" + s + ".txt"});
  }
  return splits;
}

std::size_t mlregtest_split_size(const std::string& size) {
  if (size == "small") return 1000;
  if (size == "mid") return 10000;
  if (size == "large") return 100000;
  throw InputError(fmt::format("MLRegTest size '{}': expected small, mid or large", size));
}

namespace {

bool regular(const lang::Language& l) { return lang::has_regular_dfa(l); }

// Membership and class sampling for one language.
class Sampler {
 public:
  Sampler(const lang::Language& l, std::size_t max_length, std::size_t max_states, std::size_t max_memory, bool border)
      : lang_(l) {
    if (regular(l)) {
      const automata::Dfa dfa = *lang::regular_dfa(l, max_states);
      std::optional<automata::Dfa> border_dfa;
      if (border) border_dfa = automata::border_positives(dfa, max_states);
      // The count tables (positives, negatives, border), before any is built.
      const std::size_t states = dfa.states() * 2 + (border_dfa ? border_dfa->states() : 0);
      util::check_memory(automata::WordCounter::table_bytes(states, max_length), max_memory,
                         fmt::format("counting the words of {} DFA states at every length up to {}", states, max_length));
      positive_ = std::make_unique<automata::WordCounter>(dfa, max_length);
      negative_ = std::make_unique<automata::WordCounter>(dfa.complement(), max_length);
      if (border_dfa) border_ = std::make_unique<automata::WordCounter>(*border_dfa, max_length);
    } else if (l.checker) {
      try {
        counter_.emplace(*l.checker, l.alphabet(), max_length);
      } catch (const LimitError&) {
        // Tables too big (e.g. a^n b^n c^n at lengths in the thousands):
        // the bounded rejection below, whose shortfalls are reported.
      }
    }
  }

  // Positives that have a negative at edit distance 1: uniform over the
  // border's DFA when there is one, else rejection among positives.
  std::vector<std::string> draw_border(std::mt19937_64& rng, std::size_t n, std::size_t count,
                                       const std::unordered_set<std::string>& taken) const {
    if (border_) return draw_from(*border_, rng, n, count, taken);
    std::vector<std::string> out;
    std::unordered_set<std::string> mine;
    for (std::size_t tries = 0; out.size() < count && tries < 20 * count + 200; ++tries) {
      std::optional<std::string> proposal;
      if (lang_.checker) proposal = lang_.checker->sample_border_positive(rng, n);
      if (!proposal) {
        std::vector<std::string> one = draw(rng, n, true, 1, taken);
        if (one.empty()) break;
        proposal = std::move(one[0]);
      }
      if (taken.count(*proposal) || mine.count(*proposal)) continue;
      if (!rejected_neighbours(rng, *proposal, {}).empty()) {
        mine.insert(*proposal);
        out.push_back(std::move(*proposal));
      }
    }
    return out;
  }

  // Negatives at edit distance 1 (a substitution, an insertion or a
  // deletion) from a positive, none in `taken`: all of them for regular
  // languages (from the DFA); for counting and context-free languages (whose
  // membership costs O(n) a word) those among every edit at either end of
  // the word (where prefix-count languages break) and 64 uniformly random
  // edits.
  std::vector<std::string> rejected_neighbours(std::mt19937_64& rng, const std::string& w,
                                               const std::unordered_set<std::string>& taken) const {
    std::vector<std::string> out;
    if (positive_) {
      for (std::string& c : automata::rejected_neighbours(positive_->dfa(), w)) {
        if (!taken.count(c)) out.push_back(std::move(c));
      }
      return out;
    }
    const std::string& sigma = lang_.alphabet();
    const std::size_t n = w.size(), k = sigma.size();
    const std::uint64_t edits = n * (k - 1) + (n + 1) * k + n;  // substitutions, insertions, deletions
    std::set<std::string, sym::CodePointLess> found;  // sorted by code point, whatever the codes
    auto consider = [&](std::string c) {
      if (!taken.count(c) && !member(c)) found.insert(std::move(c));
    };
    if (n > 0) {
      for (std::size_t i : {std::size_t{0}, n - 1}) {
        consider(w.substr(0, i) + w.substr(i + 1));
        for (char s : sigma) {
          std::string c = w;
          c[i] = s;
          if (s != w[i]) consider(c);
        }
      }
    }
    for (char s : sigma) {
      consider(s + w);
      consider(w + s);
    }
    for (int t = 0; t < 64; ++t) {
      std::uint64_t e = uniform_int(rng, 0, edits - 1);
      std::string c = w;
      if (e < n * (k - 1)) {
        const std::size_t i = e / (k - 1), r = e % (k - 1);
        c[i] = sigma[r < sigma.find(w[i]) ? r : r + 1];
      } else if ((e -= n * (k - 1)) < (n + 1) * k) {
        c.insert(c.begin() + static_cast<std::ptrdiff_t>(e / k), sigma[e % k]);
      } else {
        c.erase(e - (n + 1) * k, 1);
      }
      consider(std::move(c));
    }
    return {found.begin(), found.end()};
  }

  // How many words of the class (or of the border) length n has, where the
  // sampler knows exactly; "" if not.
  std::string class_size(std::size_t n, bool positive) const {
    if (counter_) return counter_->count(n, positive);
    if (!positive_) return "";
    const std::int64_t c = (positive ? *positive_ : *negative_).exact_count(n);
    return c >= 0 ? fmt::format("{}", c) : "";
  }
  std::string border_size(std::size_t n) const {
    if (!border_) return "";
    const std::int64_t c = border_->exact_count(n);
    return c >= 0 ? fmt::format("{}", c) : "";
  }

  bool member(const std::string& w) const {
    if (positive_) return positive_->dfa().accepts(w);
    if (lang_.checker) return lang_.checker->accepts(w);
    if (lang_.formula) return logic::accepts(*lang_.formula, w);
    return lang_.regex->accepts(w);
  }

  // Up to `count` distinct words of the class at length n, none in `taken`.
  std::vector<std::string> draw(std::mt19937_64& rng, std::size_t n, bool positive, std::size_t count,
                                const std::unordered_set<std::string>& taken) const {
    std::vector<std::string> out;
    std::unordered_set<std::string> mine;
    auto keep = [&](std::string w) {
      if (taken.count(w) || !mine.insert(w).second) return;
      out.push_back(std::move(w));
    };
    if (positive_) return draw_from(positive ? *positive_ : *negative_, rng, n, count, taken);
    if (counter_) {
      // Exact and uniform per class (oracle/counting.h); a class of k words
      // is collected whole within 50 count + 1000 draws when k <= 4 count.
      if (counter_->empty(n, positive)) return out;
      for (std::size_t tries = 0; out.size() < count && tries < 50 * count + 1000; ++tries) {
        if ((tries & 1023) == 0) throw_if_interrupted();
        keep(*counter_->sample(rng, n, positive));
      }
      return out;
    }
    if (positive && lang_.checker) {
      // The checker's exact sampler, when its kind has one.
      bool exists = true;
      if (auto w = lang_.checker->sample_positive(rng, n, &exists)) {
        keep(std::move(*w));
        for (std::size_t tries = 0; out.size() < count && tries < 50 * count + 1000; ++tries) {
          keep(*lang_.checker->sample_positive(rng, n));
        }
        return out;
      }
      if (!exists) return out;
    }
    // Rejection from uniform words: exactly uniform within the class.
    for (std::size_t tries = 0; out.size() < count && tries < 2000 * count + 20000; ++tries) {
      if ((tries & 1023) == 0) throw_if_interrupted();
      std::string w = words::random_word(rng, lang_.alphabet(), n, 0);
      if (member(w) == positive) keep(std::move(w));
    }
    return out;
  }

 private:
  static std::vector<std::string> draw_from(const automata::WordCounter& c, std::mt19937_64& rng, std::size_t n,
                                            std::size_t count, const std::unordered_set<std::string>& taken) {
    std::vector<std::string> out;
    std::unordered_set<std::string> mine;
    auto keep = [&](std::string w) {
      if (taken.count(w) || !mine.insert(w).second) return;
      out.push_back(std::move(w));
    };
    {
      const std::int64_t exact = c.exact_count(n);
      if (exact == 0) return out;
      if (exact >= 0 && static_cast<std::size_t>(exact) <= 4 * count + taken.size()) {
        // Few enough to list: a uniform choice without replacement.
        std::vector<std::string> all = c.enumerate(n, static_cast<std::size_t>(exact));
        for (std::size_t i = all.size(); i > 1; --i) std::swap(all[i - 1], all[uniform_int(rng, 0, i - 1)]);
        for (std::string& w : all) {
          if (out.size() >= count) break;
          keep(std::move(w));
        }
        return out;
      }
      for (std::size_t tries = 0; out.size() < count && tries < 50 * count + 1000; ++tries) keep(c.sample(rng, n));
      return out;
    }
  }

  const lang::Language& lang_;
  std::unique_ptr<automata::WordCounter> positive_, negative_, border_;
  std::optional<oracle::ClassCounter> counter_;
};

}  // namespace

std::string sampling_method(const lang::Language& l) {
  if (l.is_task()) return "the task's generator: uniform symbols, none equal to its predecessor; targets from the oracle";
  if (regular(l)) return "exact uniform sampling from the minimal DFA and its complement";
  if (l.checker) {
    return fmt::format("exact uniform sampling of each class by counting over the {} checker's configurations",
                       l.checker->kind());
  }
  return "rejection from uniform words (uniform within each class; rare classes may fall short)";
}

namespace {

// One length's words while they are drawn: phase 1 draws, split by split,
// every split's words of length n except border negatives (border splits'
// positives are kept apart, read-only once drawn); phase 2 pairs border
// negatives with positives of this length and, where that falls short, of
// the lengths either side. `taken` holds every word of length n so far.
struct Unit {
  LengthUnit out;
  std::unordered_set<std::string> taken;
  std::vector<std::vector<std::string>> border_positives;  // parallel to the splits
};

bool has_length(const Split& s, std::size_t n) {
  return std::binary_search(s.lengths.begin(), s.lengths.end(), n);
}

void draw_words(const lang::Language& language, const Sampler& sampler, const GenerateOptions& o, std::size_t s,
                Unit& unit) {
  const Split& split = o.splits[s];
  const std::size_t n = unit.out.length, want = words_at(o, split, n);
  std::mt19937_64 rng = derived_rng(o.seed, split.name, n);
  std::vector<Example>& out = unit.out.per_split[s];
  auto short_of = [&](const char* kind, std::size_t wanted, std::size_t got, std::string exists) {
    if (got < wanted) unit.out.shortages.push_back({split.name, n, kind, wanted, got, std::move(exists)});
  };
  if (language.is_task() || !o.balance) {
    // Distinct words, from the task's generator (no equal neighbours, with
    // their targets) or uniform and labelled (natural proportions).
    const bool task = language.is_task();
    for (std::size_t tries = 0; out.size() < want && tries < 50 * want + 1000; ++tries) {
      if ((tries & 1023) == 0) throw_if_interrupted();
      std::string w = task ? task::khop_word(rng, language.alphabet(), n) : words::random_word(rng, language.alphabet(), n, 0);
      if (!unit.taken.insert(w).second) continue;
      if (task) out.push_back({w, false, "task", "", language.transduce(w)});
      else out.push_back({w, sampler.member(w), "natural", "", ""});
    }
    short_of(task ? "task" : "natural", want, out.size(), "");
    return;
  }
  const std::size_t positives = (want + 1) / 2, negatives = want / 2;
  const bool border = negatives_of(o, split) == Negatives::kBorder;
  const std::vector<std::string> pos =
      border ? sampler.draw_border(rng, n, positives, unit.taken) : sampler.draw(rng, n, true, positives, unit.taken);
  for (const std::string& w : pos) {
    unit.taken.insert(w);
    out.push_back({w, true, "positive", "", ""});
  }
  short_of("positive", positives, pos.size(), border ? sampler.border_size(n) : sampler.class_size(n, true));
  if (border) {
    unit.border_positives[s] = pos;
    return;
  }
  const std::vector<std::string> neg = sampler.draw(rng, n, false, negatives, unit.taken);
  for (const std::string& w : neg) {
    unit.taken.insert(w);
    out.push_back({w, false, "negative", "", ""});
  }
  short_of("negative", negatives, neg.size(), sampler.class_size(n, false));
}

// Phase 2 for one border split at length n: floor(N/2) negatives of length
// n, each at edit distance 1 from a positive of the split (`around`: the
// units of lengths n-1, n, n+1 where the split has them, else null).
void pair_border(const Sampler& sampler, const GenerateOptions& o, std::size_t s, Unit& unit,
                 const std::array<const Unit*, 3>& around) {
  const Split& split = o.splits[s];
  const std::size_t n = unit.out.length, negatives = words_at(o, split, n) / 2;
  std::mt19937_64 rng = derived_rng(o.seed, "border:" + split.name, n);
  std::vector<Example>& out = unit.out.per_split[s];
  std::size_t made = 0;
  // Substitutions of this length's positives first (one each, in order;
  // then a second round), then insertions into the positives one shorter
  // and deletions from those one longer.
  for (const Unit* source : {around[1], around[1], around[0], around[2]}) {
    if (!source) continue;
    for (const std::string& p : source->border_positives[s]) {
      if (made >= negatives) break;
      throw_if_interrupted();
      std::vector<std::string> candidates;
      for (std::string& c : sampler.rejected_neighbours(rng, p, unit.taken)) {
        if (c.size() == n) candidates.push_back(std::move(c));
      }
      if (candidates.empty()) continue;
      std::string pick = candidates[uniform_int(rng, 0, candidates.size() - 1)];
      unit.taken.insert(pick);
      out.push_back({std::move(pick), false, "border", p, ""});
      ++made;
    }
  }
  if (made < negatives) unit.out.shortages.push_back({split.name, n, "negative", negatives, made, ""});
}

}  // namespace

std::vector<LengthUnit> generate_units(const lang::Language& language, const GenerateOptions& o, const Shard& shard) {
  if (o.splits.empty()) throw InputError("no lengths to generate");
  std::vector<std::size_t> lengths;
  bool any_border = false;
  for (const Split& s : o.splits) {
    lengths.insert(lengths.end(), s.lengths.begin(), s.lengths.end());
    any_border = any_border || (o.balance && negatives_of(o, s) == Negatives::kBorder);
  }
  std::sort(lengths.begin(), lengths.end());
  lengths.erase(std::unique(lengths.begin(), lengths.end()), lengths.end());
  if (lengths.empty()) throw InputError("no lengths to generate");
  const Sampler sampler(language, lengths.back() + 1, o.max_states, o.max_memory, any_border && !language.is_task());
  const auto [lo, hi] = shard_range(lengths.size(), shard);
  // This shard's lengths, and for border pairing the lengths either side.
  const std::size_t first = lo > 0 ? lo - 1 : lo, last = hi < lengths.size() ? hi + 1 : hi;
  std::vector<Unit> units(last - first);
  for (std::size_t u = 0; u < units.size(); ++u) {
    units[u].out.length = lengths[first + u];
    units[u].out.per_split.resize(o.splits.size());
    units[u].border_positives.resize(o.splits.size());
    for (const std::string& w : o.exclude) {
      if (w.size() == units[u].out.length) units[u].taken.insert(w);
    }
  }
  const int threads = std::max(1, std::min<int>(o.threads, static_cast<int>(units.size())));
  if (o.progress) o.progress->add_total(units.size() + (hi - lo));
  parallel_items(units.size(), threads, [&](std::size_t u) {
    for (std::size_t s = 0; s < o.splits.size(); ++s) {
      if (has_length(o.splits[s], units[u].out.length)) draw_words(language, sampler, o, s, units[u]);
    }
    if (o.progress) o.progress->advance();
  });
  throw_if_interrupted();
  const std::size_t mine_lo = lo - first, mine_hi = hi - first;
  auto unit_at = [&](std::size_t u, std::size_t length, const Split& split) -> const Unit* {
    if (u >= units.size() || units[u].out.length != length || !has_length(split, length)) return nullptr;
    return &units[u];
  };
  parallel_items(mine_hi - mine_lo, threads, [&](std::size_t i) {
    const std::size_t u = mine_lo + i;
    Unit& unit = units[u];
    const std::size_t n = unit.out.length;
    for (std::size_t s = 0; s < o.splits.size(); ++s) {
      const Split& split = o.splits[s];
      if (!o.balance || language.is_task() || negatives_of(o, split) != Negatives::kBorder || !has_length(split, n)) {
        continue;
      }
      pair_border(sampler, o, s, unit,
                  {n > 0 ? unit_at(u - 1, n - 1, split) : nullptr, &unit, unit_at(u + 1, n + 1, split)});
    }
    if (o.progress) o.progress->advance();
  });
  throw_if_interrupted();
  std::vector<LengthUnit> out;
  for (std::size_t u = mine_lo; u < mine_hi; ++u) out.push_back(std::move(units[u].out));
  return out;
}

Corpus assemble_corpus(const std::vector<LengthUnit>& units, const GenerateOptions& o, const std::string& sampler) {
  // Every word of a unit has its length and is distinct from the unit's other
  // words (of every split), so concatenation keeps the words distinct.
  Corpus corpus;
  corpus.sampler = sampler;
  corpus.splits.resize(o.splits.size());
  for (const LengthUnit& unit : units) {
    for (std::size_t s = 0; s < o.splits.size(); ++s) {
      corpus.splits[s].insert(corpus.splits[s].end(), unit.per_split[s].begin(), unit.per_split[s].end());
    }
    corpus.shortages.insert(corpus.shortages.end(), unit.shortages.begin(), unit.shortages.end());
  }
  for (std::size_t s = 0; s < o.splits.size(); ++s) {
    if (o.shuffle) {
      std::mt19937_64 rng = derived_rng(o.seed, "shuffle:" + o.splits[s].name);
      auto& v = corpus.splits[s];
      for (std::size_t i = v.size(); i > 1; --i) std::swap(v[i - 1], v[uniform_int(rng, 0, i - 1)]);
    }
  }
  return corpus;
}

Corpus generate_corpus(const lang::Language& language, const GenerateOptions& o) {
  return assemble_corpus(generate_units(language, o, Shard{}), o, sampling_method(language));
}

}  // namespace softhat::corpus
