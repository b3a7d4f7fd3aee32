#include "verify/float32.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "util/error.h"
#include "util/interrupt.h"
#include "util/memory.h"
#include "util/parallel.h"
#include "util/symbols.h"
#include "verify/sample_words.h"
#include "words/words.h"

namespace softhat::verify {

namespace {

// One word in both precisions.
struct Compared {
  bool same = true;
  double margin = model::kNoGap;  // the double run's (+inf: nothing to read, e.g. an empty transduction)
  double deviation = 0;           // largest |float32 - double| of what the readout reads
  double state_deviation = 0;     // largest |float32 - double| over the whole final residual stream
  std::string why;                // !same: how the runs differ
};

// The readout's values: y for an acceptor; for a transducer every output
// coordinate at every position after BOS.
double readout_deviation(const model::ModelConfig& c, const model::RunResult& d, const model::RunResult& f) {
  if (!c.transducer) return std::abs(d.y - f.y);
  double worst = 0;
  for (Eigen::Index i = 1; i < d.states.rows(); ++i) {
    for (int k : c.transducer->coordinates) worst = std::max(worst, std::abs(d.states(i, k) - f.states(i, k)));
  }
  return worst;
}

// A transducer's margin: at every position, how far its best output
// coordinate is from the threshold and, when it is emitted, half its lead
// over the runner-up (a change of either size flips the symbol). +inf for
// the empty word.
double transduction_margin(const model::TransducerReadout& t, const model::Matrix& states) {
  double margin = model::kNoGap;
  for (Eigen::Index i = 1; i < states.rows(); ++i) {
    double best = -model::kNoGap, second = -model::kNoGap;
    for (int k : t.coordinates) {
      const double v = states(i, k);
      if (v > best) {
        second = best;
        best = v;
      } else if (v > second) {
        second = v;
      }
    }
    if (best < t.threshold) {
      margin = std::min(margin, t.threshold - best);  // the default symbol, whichever coordinate is best
    } else {
      margin = std::min({margin, best - t.threshold, (best - second) / 2});  // second = -inf: no runner-up
    }
  }
  return margin;
}

Compared compare(const model::ModelConfig& c, model::Runner& dbl, model::Runner& flt, const std::string& word,
                 const model::RunOptions& run) {
  Compared out;
  const model::RunResult d = dbl.run(word, run);  // an error in double is the model's, not float32's: it propagates
  model::RunResult f;
  try {
    f = flt.run(word, run);
  } catch (const NumericError& e) {  // float32 overflows where double does not: not the same
    out.same = false;
    out.why = fmt::format("the float32 run fails ({}) where double runs", e.what());
    return out;
  }
  out.deviation = readout_deviation(c, d, f);
  out.state_deviation = (d.states - f.states).cwiseAbs().maxCoeff();
  if (c.transducer) {
    out.margin = transduction_margin(*c.transducer, d.states);
    if (d.output != f.output) {
      out.same = false;
      out.why = fmt::format("outputs differ: double '{}', float32 '{}'", sym::encode(d.output.value_or("")),
                            sym::encode(f.output.value_or("")));
    }
  } else {
    out.margin = d.output_margin;
    if (d.accepted != f.accepted) {
      out.same = false;
      out.why = fmt::format("verdicts differ: double {} (y = {:.9g}), float32 {} (y = {:.9g})",
                            d.accepted ? "accepts" : "rejects", d.y, f.accepted ? "accepts" : "rejects", f.y);
    }
  }
  return out;
}

}  // namespace

Float32Result check_float32(const model::Transformer& model, const lang::Language& language,
                            const Float32Options& options) {
  if (options.max_len == 0) throw std::invalid_argument("the float32 check needs a length of at least 1");
  // Program models (rasp compile) pad their words and refuse some: their
  // claim would need the range flags in its margins. Not checked.
  if (model.config.program) throw std::invalid_argument("the float32 check is for compiled languages, not program models");
  const std::string& alphabet = language.alphabet();
  const std::size_t short_len = std::min(words::default_max_len(alphabet.size()), options.max_len);
  std::vector<std::string> checked = words::all_words(alphabet, short_len);
  std::vector<std::size_t> lengths;
  for (std::size_t n = 16; n < options.max_len; n *= 2) {
    if (n > short_len) lengths.push_back(n);
  }
  if (options.max_len > short_len) lengths.push_back(options.max_len);
  // The words held at once (with their results), and per thread two
  // runners' buffers and two kept residual streams at the longest length.
  // Refused only if one thread does not fit; else as many threads run as fit,
  // so the result never depends on the thread count.
  const std::size_t longest = std::max(short_len, options.max_len);
  const std::size_t per_thread = util::saturating_product(
      {util::saturating_sum({model::word_memory_bytes(model, longest, options.run),
                             util::saturating_product({longest + 1, static_cast<std::size_t>(model.config.d_model),
                                                       sizeof(double)})}),
       2});
  const std::size_t word_count = util::saturating_sum(
      {checked.size(), util::saturating_product({lengths.size(), options.samples})});
  const std::size_t held = util::saturating_sum(
      {sampled_words_bytes(lengths, options.samples), sampled_words_bytes({short_len}, checked.size()),
       util::saturating_product({word_count, sizeof(Compared)})});
  util::check_memory(util::saturating_sum({held, per_thread}), options.run.max_memory,
                     fmt::format("the float32 check ({} words per length, up to {} symbols)", options.samples, longest));
  int fit = std::max(1, options.threads);
  if (options.run.max_memory > 0) {
    const std::size_t room = (options.run.max_memory - held) / std::max<std::size_t>(per_thread, 1);
    fit = static_cast<int>(std::clamp<std::size_t>(room, 1, static_cast<std::size_t>(fit)));
  }
  for (std::size_t n : lengths) {
    for (std::string& w : balanced_words(language, n, options.samples, options.seed, options.run.max_memory)) {
      checked.push_back(std::move(w));
    }
  }

  const model::Engine dbl(model, model::Precision::kDouble);
  const model::Engine flt(model, model::Precision::kFloat);
  model::RunOptions run = options.run;
  run.mode = model::AttentionMode::kSoftmax;
  run.keep_all_states = true;
  std::vector<Compared> results(checked.size());
  const int threads = std::max(1, std::min<int>(fit, static_cast<int>(checked.size() / 32 + 1)));
  parallel_blocks(0, checked.size(), threads, [&](int, std::uint64_t a, std::uint64_t b) {
    model::Runner d(dbl), f(flt);
    for (std::uint64_t i = a; i < b; ++i) {
      if ((i & 63) == 0) throw_if_interrupted();
      results[i] = compare(model.config, d, f, checked[i], run);
    }
  });

  Float32Result r;
  r.claim.safety = options.safety;
  r.claim.words = checked.size();
  r.claim.max_length = options.max_len;
  double min_margin = model::kNoGap;
  for (std::size_t i = 0; i < checked.size(); ++i) {
    const Compared& c = results[i];
    min_margin = std::min(min_margin, c.margin);
    r.claim.max_deviation = std::max(r.claim.max_deviation, c.deviation);
    r.claim.max_state_deviation = std::max(r.claim.max_state_deviation, c.state_deviation);
    if (!r.failure.empty()) continue;
    const std::string word = checked[i].empty() ? "(empty word)" : "'" + sym::encode(checked[i]) + "'";
    if (!c.same) {
      r.failure = fmt::format("{} (length {}): {}", word, checked[i].size(), c.why);
    } else if (!(c.margin > 0)) {
      r.failure = fmt::format("{} (length {}): the double run has no margin (y is on the threshold)", word,
                              checked[i].size());
    } else if (c.margin < options.safety * c.deviation) {
      r.failure = fmt::format("{} (length {}): double margin {:.3g} is below {:g} x the float32 deviation {:.3g}",
                              word, checked[i].size(), c.margin, options.safety, c.deviation);
    }
  }
  // Every transduction word was empty: no margin was read (the claim then rests on equal outputs alone).
  r.claim.min_margin = std::isfinite(min_margin) ? min_margin : 0;
  r.holds = r.failure.empty() && r.claim.min_margin > 0 && r.claim.min_margin >= options.safety * r.claim.max_deviation;
  if (r.failure.empty() && !r.holds) {
    r.failure = fmt::format("the smallest margin {:.3g} is below {:g} x the largest deviation {:.3g}", r.claim.min_margin,
                            options.safety, r.claim.max_deviation);
  }
  return r;
}

}  // namespace softhat::verify
