#include "compile/khop.h"

#include <fmt/format.h>

#include <set>
#include <string>

#include "task/khop.h"
#include "util/error.h"
#include "util/symbols.h"

namespace softhat::compile {

namespace {

using model::Mask;

// Coordinates: one, BOS, tok[s], j/(n+1), then per layer raw[s] and rounded[s].
struct KhopLayout {
  int s = 0, hops = 0;
  int one = 0, bos = 1, tok = 2, frac = 0;
  KhopLayout(int symbols, int hop_count) : s(symbols), hops(hop_count), frac(2 + symbols) {}
  int raw(int layer) const { return frac + 1 + 2 * s * layer; }
  int rounded(int layer) const { return raw(layer) + s; }
  int width() const { return frac + 1 + 2 * s * (hops + 1); }
};

// k+1 layers of one rightmost head each: the previous symbol, then one hop
// per layer; the transduction reads the last hop's rounded coordinates.
model::ModelConfig khop_config(const std::string& alphabet, double c, const KhopLayout& L) {
  using K = model::PositionFeature::Kind;
  const int s = L.s, hops = L.hops;
  model::ModelConfig cfg;
  cfg.alphabet = alphabet;
  cfg.d_model = L.width();
  cfg.residual_labels.assign(cfg.d_model, "");
  cfg.residual_labels[L.one] = "one";
  cfg.residual_labels[L.bos] = "BOS";
  cfg.residual_labels[L.frac] = "j/(n+1)";
  for (int a = 0; a < s; ++a) {
    cfg.residual_labels[L.tok + a] = fmt::format("tok:{}", sym::encode(alphabet[a]));
    for (int l = 0; l <= hops; ++l) {
      const std::string what = l == 0 ? "prev" : fmt::format("hop{}", l);
      cfg.residual_labels[L.raw(l) + a] = fmt::format("{}:{} (raw)", what, sym::encode(alphabet[a]));
      cfg.residual_labels[L.rounded(l) + a] = fmt::format("{}:{}", what, sym::encode(alphabet[a]));
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
  for (int a = 0; a < s; ++a) tr.coordinates.push_back(L.rounded(hops) + a);
  tr.symbols = alphabet;
  tr.default_symbol = task::kUndefined;
  cfg.transducer = tr;
  cfg.readout = {L.rounded(hops), 0.5};  // acceptor view (unused by the transduction): hop_k(n) is the first symbol
  cfg.notes["construction"] = "khop";
  cfg.notes["hops"] = std::to_string(hops);
  cfg.notes["description"] = "k-hop induction heads: k+1 rightmost-match heads, beta = c(n+1) (docs/dyck-and-khop.md)";
  return cfg;
}

// rho on every coordinate of layer l's raw output.
void write_rounding(const KhopLayout& L, int l, model::LayerWeights& f) {
  for (int a = 0; a < L.s; ++a) {
    f.fc1(2 * a, L.raw(l) + a) = 2;
    f.b1(2 * a) = -0.5;
    f.fc1(2 * a + 1, L.raw(l) + a) = 2;
    f.b1(2 * a + 1) = -1.5;
    f.fc2(L.rounded(l) + a, 2 * a) = 1;
    f.fc2(L.rounded(l) + a, 2 * a + 1) = -1;
  }
}

// Layer 0: prev(i) = w_{i-1}, the rightmost key by j/(n+1).
void write_previous_symbol(const KhopLayout& L, model::LayerWeights& f) {
  model::HeadWeights& h = f.heads[0];
  h.q(0, L.one) = 1;
  h.k(0, L.frac) = 1;
  for (int a = 0; a < L.s; ++a) {
    h.v(a, L.tok + a) = 1;
    h.o(L.raw(0) + a, a) = 1;
  }
  write_rounding(L, 0, f);
}

// Layer l >= 1: the rightmost j <= i with prev(j) = w_i (BOS if none) hands
// on hop l-1 (w_j itself for the first hop).
void write_hop(const KhopLayout& L, int l, model::LayerWeights& f) {
  const int s = L.s;
  model::HeadWeights& h = f.heads[0];
  for (int a = 0; a < s; ++a) {
    h.q(a, L.tok + a) = 1;         // [w_i = a]
    h.k(a, L.rounded(0) + a) = 1;  // [prev(j) = a]
  }
  h.q(s, L.one) = 1;
  h.k(s, L.frac) = 1;  // + j/(n+1)
  h.q(s + 1, L.one) = 1;
  h.k(s + 1, L.bos) = 1;  // BOS: 1
  const int source = l == 1 ? L.tok : L.rounded(l - 1);
  for (int a = 0; a < s; ++a) {
    h.v(a, source + a) = 1;
    h.o(L.raw(l) + a, a) = 1;
  }
  write_rounding(L, l, f);
}

}  // namespace

model::Transformer build_khop(const std::string& alphabet, int hops, double c) {
  const std::set<char> distinct(alphabet.begin(), alphabet.end());
  if (hops < 1 || hops > 64) throw InputError(fmt::format("k-hop: hops {} is outside 1..64", hops));
  if (alphabet.size() < 2 || alphabet.size() > 26 || distinct.size() != alphabet.size() ||
      distinct.count(task::kUndefined)) {
    throw InputError(fmt::format("k-hop: alphabet '{}' must have 2..26 distinct symbols other than '~'",
                                 sym::encode(alphabet)));
  }
  const KhopLayout L(static_cast<int>(alphabet.size()), hops);
  model::Transformer t = model::Transformer::zeros(khop_config(alphabet, c, L));
  t.embed(0, L.bos) = 1;
  for (int a = 0; a < L.s; ++a) t.embed(a + 1, L.tok + a) = 1;
  t.pos_proj(L.one, 0) = 1;
  t.pos_proj(L.frac, 1) = 1;
  write_previous_symbol(L, t.layers[0]);
  for (int l = 1; l <= hops; ++l) write_hop(L, l, t.layers[l]);
  return t;
}

}  // namespace softhat::compile
