#include "corpus/generate.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <memory>
#include <set>
#include <unordered_set>

#include "automata/border.h"
#include "automata/count.h"
#include "logic/eval.h"
#include "task/khop.h"
#include "util/error.h"
#include "util/interrupt.h"
#include "util/parallel.h"
#include "util/symbols.h"
#include "words/words.h"

namespace softhat::corpus {

Split parse_split(const std::string& text) {
  Split s;
  std::string range = text;
  if (const std::size_t colon = text.find(':'); colon != std::string::npos) {
    s.name = text.substr(0, colon);
    range = text.substr(colon + 1);
  } else {
    s.name = "all";
  }
  auto bad = [&] { throw InputError(fmt::format("split '{}': expected NAME:A-B or A-B with A <= B", text)); };
  if (s.name.empty() || s.name.find_first_of("/\\ \t") != std::string::npos) bad();
  const std::size_t dash = range.find('-');
  try {
    std::size_t used = 0;
    if (dash == std::string::npos) {
      s.lo = s.hi = std::stoul(range, &used);
      if (used != range.size()) bad();
    } else {
      s.lo = std::stoul(range.substr(0, dash), &used);
      if (used != dash) bad();
      s.hi = std::stoul(range.substr(dash + 1), &used);
      if (used != range.size() - dash - 1) bad();
    }
  } catch (const std::logic_error&) {
    bad();
  }
  if (s.lo > s.hi || s.hi > 1'000'000) bad();
  return s;
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

namespace {

bool regular(const lang::Language& l) { return lang::has_regular_dfa(l); }

// Membership and class sampling for one language.
class Sampler {
 public:
  Sampler(const lang::Language& l, std::size_t max_length, std::size_t max_states, bool border) : lang_(l) {
    if (regular(l)) {
      const automata::Dfa dfa = *lang::regular_dfa(l, max_states);
      positive_ = std::make_unique<automata::WordCounter>(dfa, max_length);
      negative_ = std::make_unique<automata::WordCounter>(dfa.complement(), max_length);
      if (border) border_ = std::make_unique<automata::WordCounter>(automata::border_positives(dfa, max_states), max_length);
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

  // Negatives at edit distance 1 from a positive, none in `taken`: all of
  // them for regular languages (from the DFA); for counting and context-free
  // languages (whose membership costs O(n) a word) those among every edit at
  // either end of the word (where prefix-count languages break) and 64
  // uniformly random edits, where an edit is a substitution, an insertion, a
  // deletion or (near misses of bracket languages) a swap of two adjacent
  // distinct symbols.
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
    const std::uint64_t swaps = n > 1 ? n - 1 : 0;
    const std::uint64_t edits = n * (k - 1) + (n + 1) * k + n + swaps;  // substitutions, insertions, deletions, swaps
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
    auto swapped = [&](std::size_t i) {
      std::string c = w;
      std::swap(c[i], c[i + 1]);
      return c;
    };
    if (n > 1) {
      if (w[0] != w[1]) consider(swapped(0));
      if (w[n - 2] != w[n - 1]) consider(swapped(n - 2));
    }
    for (int t = 0; t < 64; ++t) {
      std::uint64_t e = uniform_int(rng, 0, edits - 1);
      std::string c = w;
      if (e < n * (k - 1)) {
        const std::size_t i = e / (k - 1), r = e % (k - 1);
        c[i] = sigma[r < sigma.find(w[i]) ? r : r + 1];
      } else if ((e -= n * (k - 1)) < (n + 1) * k) {
        c.insert(c.begin() + static_cast<std::ptrdiff_t>(e / k), sigma[e % k]);
      } else if ((e -= (n + 1) * k) < n) {
        c.erase(e, 1);
      } else {
        c = swapped(e - n);
        if (c == w) continue;
      }
      consider(std::move(c));
    }
    return {found.begin(), found.end()};
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
};

// All the work for one length: every split that contains it, in split order.
}  // namespace

std::string sampling_method(const lang::Language& l) {
  if (l.is_task()) return "the task's generator: uniform symbols, none equal to its predecessor; targets from the oracle";
  if (regular(l)) return "exact uniform sampling from the minimal DFA and its complement";
  if (l.checker) {
    std::mt19937_64 rng(1);
    bool exists = true;
    if (l.checker->sample_positive(rng, 2, &exists) || !exists) {
      return fmt::format("positives: the {} checker's exact uniform sampler; negatives: rejection from uniform words",
                         l.checker->kind());
    }
  }
  return "rejection from uniform words (uniform within each class; rare classes may fall short)";
}

std::vector<LengthUnit> generate_units(const lang::Language& language, const GenerateOptions& o, const Shard& shard) {
  if (o.splits.empty()) throw InputError("no lengths to generate: give --lengths A-B or --split NAME:A-B");
  std::size_t max_length = 0;
  for (const Split& s : o.splits) max_length = std::max(max_length, s.hi);
  const Sampler sampler(language, max_length + 1, o.max_states, o.balance && o.negatives == Negatives::kBorder);
  std::vector<std::size_t> lengths;
  for (const Split& s : o.splits) {
    for (std::size_t n = s.lo; n <= s.hi; ++n) lengths.push_back(n);
  }
  std::sort(lengths.begin(), lengths.end());
  lengths.erase(std::unique(lengths.begin(), lengths.end()), lengths.end());
  {
    const auto [lo, hi] = shard_range(lengths.size(), shard);
    lengths = std::vector<std::size_t>(lengths.begin() + static_cast<std::ptrdiff_t>(lo),
                                       lengths.begin() + static_cast<std::ptrdiff_t>(hi));
  }

  std::vector<LengthUnit> units(lengths.size());
  auto work = [&](std::size_t u) {
    LengthUnit& unit = units[u];
    unit.length = lengths[u];
    const std::size_t n = unit.length;
    unit.per_split.resize(o.splits.size());
    std::unordered_set<std::string> taken;
    for (std::size_t s = 0; s < o.splits.size(); ++s) {
      const Split& split = o.splits[s];
      if (n < split.lo || n > split.hi) continue;
      std::mt19937_64 rng = derived_rng(o.seed, split.name, n);
      std::vector<Example>& out = unit.per_split[s];
      if (language.is_task()) {
        // Distinct words from the task's generator (no equal neighbours), with their targets.
        std::size_t tries = 0;
        while (out.size() < o.per_length && tries++ < 50 * o.per_length + 1000) {
          std::string w = task::khop_word(rng, language.alphabet(), n);
          if (!taken.insert(w).second) continue;
          std::string target = language.transduce(w);
          out.push_back({std::move(w), false, "task", "", std::move(target)});
        }
        if (out.size() < o.per_length) unit.shortages.push_back({split.name, n, "task", o.per_length, out.size()});
        continue;
      }
      auto take = [&](bool positive, const char* kind) {
        const std::vector<std::string> words = sampler.draw(rng, n, positive, o.per_length, taken);
        for (const std::string& w : words) {
          taken.insert(w);
          out.push_back({w, positive, kind, ""});
        }
        if (words.size() < o.per_length) unit.shortages.push_back({split.name, n, kind, o.per_length, words.size()});
      };
      if (!o.balance) {
        // Natural proportions: distinct uniform words, labelled.
        std::size_t tries = 0;
        while (out.size() < o.per_length && tries++ < 50 * o.per_length + 1000) {
          std::string w = words::random_word(rng, language.alphabet(), n, 0);
          if (!taken.insert(w).second) continue;
          const bool label = sampler.member(w);
          out.push_back({w, label, "natural", ""});
        }
        if (out.size() < o.per_length) unit.shortages.push_back({split.name, n, "natural", o.per_length, out.size()});
        continue;
      }
      if (o.negatives == Negatives::kUniform) {
        take(true, "positive");
        take(false, "negative");
        continue;
      }
      {
        const std::vector<std::string> words = sampler.draw_border(rng, n, o.per_length, taken);
        for (const std::string& w : words) {
          taken.insert(w);
          out.push_back({w, true, "positive", ""});
        }
        if (words.size() < o.per_length) unit.shortages.push_back({split.name, n, "positive", o.per_length, words.size()});
      }
      // Border: one uniformly chosen non-member at edit distance 1 per positive.
      const std::size_t positives = out.size();
      std::size_t made = 0;
      for (std::size_t i = 0; i < positives; ++i) {
        const std::vector<std::string> candidates = sampler.rejected_neighbours(rng, out[i].word, taken);
        if (candidates.empty()) continue;
        std::string pick = candidates[uniform_int(rng, 0, candidates.size() - 1)];
        taken.insert(pick);
        out.push_back({pick, false, "border", out[i].word});
        ++made;
      }
      if (made < o.per_length) unit.shortages.push_back({split.name, n, "border", o.per_length, made});
    }
  };
  parallel_items(units.size(), std::max(1, std::min<int>(o.threads, static_cast<int>(units.size()))), work);
  throw_if_interrupted();
  return units;
}

Corpus assemble_corpus(const std::vector<LengthUnit>& units, const GenerateOptions& o, const std::string& sampler) {
  // Assemble in a fixed order; border negatives (length n +- 1) may collide
  // with words of other lengths: the later one is dropped (deterministically).
  Corpus corpus;
  corpus.sampler = sampler;
  corpus.splits.resize(o.splits.size());
  std::unordered_set<std::string> seen;
  std::vector<std::size_t> border_lost(o.splits.size(), 0);
  for (const LengthUnit& unit : units) {
    for (std::size_t s = 0; s < o.splits.size(); ++s) {
      for (const Example& e : unit.per_split[s]) {
        if (!seen.insert(e.word).second) {
          ++border_lost[s];
          continue;
        }
        corpus.splits[s].push_back(e);
      }
    }
    corpus.shortages.insert(corpus.shortages.end(), unit.shortages.begin(), unit.shortages.end());
  }
  for (std::size_t s = 0; s < o.splits.size(); ++s) {
    if (border_lost[s]) {
      corpus.dropped.push_back({o.splits[s].name, border_lost[s]});
    }
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
