#include "compile/khop.h"

#include <fmt/format.h>

#include <set>

#include "task/khop.h"
#include "util/error.h"
#include "util/symbols.h"

namespace softhat::compile {

model::Transformer build_khop(const std::string& alphabet, int hops, double c) {
  const std::set<char> distinct(alphabet.begin(), alphabet.end());
  if (hops < 1 || hops > 64) throw InputError(fmt::format("k-hop: hops {} is outside 1..64", hops));
  if (alphabet.size() < 2 || alphabet.size() > 26 || distinct.size() != alphabet.size() ||
      distinct.count(task::kUndefined)) {
    throw InputError(fmt::format("k-hop: alphabet '{}' must have 2..26 distinct symbols other than '~'",
                                 sym::encode(alphabet)));
  }
  const int s = static_cast<int>(alphabet.size());
  using model::Mask;
  using K = model::PositionFeature::Kind;
  // Coordinates: one, BOS, tok[s], j/(n+1), then per layer raw[s] and rounded[s].
  const int one = 0, bos = 1, tok = 2, frac = 2 + s;
  auto raw = [&](int layer) { return frac + 1 + 2 * s * layer; };
  auto rounded = [&](int layer) { return raw(layer) + s; };
  model::ModelConfig cfg;
  cfg.alphabet = alphabet;
  cfg.d_model = frac + 1 + 2 * s * (hops + 1);
  cfg.residual_labels.assign(cfg.d_model, "");
  cfg.residual_labels[one] = "one";
  cfg.residual_labels[bos] = "BOS";
  cfg.residual_labels[frac] = "j/(n+1)";
  for (int a = 0; a < s; ++a) {
    cfg.residual_labels[tok + a] = fmt::format("tok:{}", sym::encode(alphabet[a]));
    for (int l = 0; l <= hops; ++l) {
      const std::string what = l == 0 ? "prev" : fmt::format("hop{}", l);
      cfg.residual_labels[raw(l) + a] = fmt::format("{}:{} (raw)", what, sym::encode(alphabet[a]));
      cfg.residual_labels[rounded(l) + a] = fmt::format("{}:{}", what, sym::encode(alphabet[a]));
    }
  }
  cfg.position_features = {{K::kOne, 0}, {K::kFraction, 0}};
  cfg.beta = model::BetaSchedule{.c = c, .a = 1.0, .b = 0.0};
  auto head = [&](Mask mask, std::string label) {
    model::HeadConfig h;
    h.d_head = mask == Mask::kStrictFuture ? 1 : s + 2;
    h.d_value = s;
    h.mask = mask;
    h.hard = model::HardKind::kRightmost;
    h.label = std::move(label);
    return h;
  };
  cfg.layers.push_back({{head(Mask::kStrictFuture, "previous symbol")}, 2 * s, "prev(i) = w_{i-1}"});
  for (int t = 1; t <= hops; ++t) {
    cfg.layers.push_back(
        {{head(Mask::kFuture, fmt::format("rightmost j <= i with prev(j) = w_i -> hop{}", t - 1))}, 2 * s,
         fmt::format("hop {}", t)});
  }
  model::TransducerReadout tr;
  for (int a = 0; a < s; ++a) tr.coordinates.push_back(rounded(hops) + a);
  tr.symbols = alphabet;
  tr.default_symbol = task::kUndefined;
  cfg.transducer = tr;
  cfg.readout = {rounded(hops), 0.5};  // acceptor view (unused by the transduction): hop_k(n) is the first symbol
  cfg.notes["construction"] = "khop";
  cfg.notes["hops"] = std::to_string(hops);
  cfg.notes["description"] = "k-hop induction heads: k+1 rightmost-match heads, beta = c(n+1) (docs/dyck-and-khop.md)";

  model::Transformer t = model::Transformer::zeros(cfg);
  t.embed(0, bos) = 1;
  for (int a = 0; a < s; ++a) t.embed(a + 1, tok + a) = 1;
  t.pos_proj(one, 0) = 1;
  t.pos_proj(frac, 1) = 1;
  // rho on every coordinate of layer l's raw output.
  auto rounding = [&](int l) {
    model::LayerWeights& f = t.layers[l];
    for (int a = 0; a < s; ++a) {
      f.fc1(2 * a, raw(l) + a) = 2;
      f.b1(2 * a) = -0.5;
      f.fc1(2 * a + 1, raw(l) + a) = 2;
      f.b1(2 * a + 1) = -1.5;
      f.fc2(rounded(l) + a, 2 * a) = 1;
      f.fc2(rounded(l) + a, 2 * a + 1) = -1;
    }
  };
  {
    model::HeadWeights& h = t.layers[0].heads[0];
    h.q(0, one) = 1;
    h.k(0, frac) = 1;
    for (int a = 0; a < s; ++a) {
      h.v(a, tok + a) = 1;
      h.o(raw(0) + a, a) = 1;
    }
    rounding(0);
  }
  for (int l = 1; l <= hops; ++l) {
    model::HeadWeights& h = t.layers[l].heads[0];
    for (int a = 0; a < s; ++a) {
      h.q(a, tok + a) = 1;         // [w_i = a]
      h.k(a, rounded(0) + a) = 1;  // [prev(j) = a]
    }
    h.q(s, one) = 1;
    h.k(s, frac) = 1;  // + j/(n+1)
    h.q(s + 1, one) = 1;
    h.k(s + 1, bos) = 1;  // BOS: 1
    const int source = l == 1 ? tok : rounded(l - 1);
    for (int a = 0; a < s; ++a) {
      h.v(a, source + a) = 1;
      h.o(raw(l) + a, a) = 1;
    }
    rounding(l);
  }
  return t;
}

}  // namespace softhat::compile
