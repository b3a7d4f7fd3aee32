#include "compile/dyck.h"

#include <fmt/format.h>

#include <set>
#include <string>
#include <vector>

#include "util/error.h"
#include "util/symbols.h"

namespace softhat::compile {

namespace {

// Residual coordinates, in order (labels go into the model file).
struct Layout {
  int k = 0;
  int one = 0, bos = 1, open = 2, close = 3, open_type = 4, close_type = 0;
  int j = 0, j2 = 0, inv = 0, frac = 0;
  int avg = 0, depth = 0, depth2 = 0, neg_raw = 0, neg = 0, match = 0, bad_close = 0, no_bad = 0, y = 0;
  int width = 0;
  explicit Layout(int types) : k(types) {
    close_type = open_type + k;
    j = close_type + k;
    j2 = j + 1;
    inv = j + 2;
    frac = j + 3;
    avg = j + 4;
    depth = avg + 1;
    depth2 = avg + 2;
    neg_raw = avg + 3;
    neg = avg + 4;
    match = avg + 5;
    bad_close = match + k;
    no_bad = bad_close + 1;
    y = no_bad + 1;
    width = y + 1;
  }
};

model::HeadConfig head(int d_head, int d_value, model::Mask mask, std::string label) {
  model::HeadConfig h;
  h.d_head = d_head;
  h.d_value = d_value;
  h.mask = mask;
  h.hard = model::HardKind::kAverage;
  h.label = std::move(label);
  return h;
}

// The residual coordinates' labels (the model file shows them).
std::vector<std::string> residual_labels(const std::string& pairs, const Layout& c) {
  std::vector<std::string> labels(c.width, "");
  auto label = [&](int at, std::string s) { labels[at] = std::move(s); };
  label(c.one, "one");
  label(c.bos, "BOS");
  label(c.open, "open");
  label(c.close, "close");
  for (int t = 0; t < c.k; ++t) {
    label(c.open_type + t, fmt::format("open {}", sym::encode(pairs[2 * t])));
    label(c.close_type + t, fmt::format("close {}", sym::encode(pairs[2 * t + 1])));
    label(c.match + t, fmt::format("match is {}", sym::encode(pairs[2 * t])));
  }
  label(c.j, "j");
  label(c.j2, "j^2");
  label(c.inv, "1/(j+1)");
  label(c.frac, "j/(n+1)");
  label(c.avg, "depth/(i+1)");
  label(c.depth, "depth (clamped at 0)");
  label(c.depth2, "depth^2");
  label(c.neg_raw, "depth < 0 (raw)");
  label(c.neg, "depth < 0");
  label(c.bad_close, "closer without a matching opener");
  label(c.no_bad, "no bad position so far");
  label(c.y, "accept");
  return labels;
}

// Four layers: depth by uniform counting, depth retrieval and sign,
// matching, accept.
model::ModelConfig dyck_config(const std::string& pairs, const Layout& c) {
  using model::Mask;
  using K = model::PositionFeature::Kind;
  const int k = c.k;
  model::ModelConfig cfg;
  cfg.alphabet = pairs;
  cfg.d_model = c.width;
  cfg.residual_labels = residual_labels(pairs, c);
  cfg.position_features = {{K::kOne, 0}, {K::kIndex, 0}, {K::kIndexSquared, 0}, {K::kInverse, 0}, {K::kFraction, 0}};
  // The theorem's beta(n) for this model grows like (n+1) ln(n+1) (measured by
  // softhat simulate: docs/dyck-and-khop.md); this schedule lies above it on
  // every tested length.
  cfg.beta = model::BetaSchedule{.c = 64.0, .a = 1.0, .b = 1.0};

  model::LayerConfig l0{{head(1, 1, Mask::kFuture, "depth/(i+1) (uniform)")}, 0, "depth by uniform counting"};
  model::LayerConfig l1{{head(2, 2, Mask::kFuture, "depth retrieval"), head(1, 1, Mask::kFuture, "depth < 0")},
                        2,
                        "depth as an integer, sign"};
  model::LayerConfig l2{{head(4, k, Mask::kStrictFuture, "nearest opener of equal depth")}, k + 1, "matching"};
  model::LayerConfig l3{{head(2, 1, Mask::kFuture, "any bad position")}, 1, "accept"};
  cfg.layers = {l0, l1, l2, l3};
  cfg.readout = {c.y, 0.5};
  cfg.notes["construction"] = "dyck";
  cfg.notes["pairs"] = sym::encode(pairs);  // UTF-8, as the alphabet
  cfg.notes["description"] =
      "average-hard Dyck-k acceptor after Yao et al. 2021: uniform depth counting, depth retrieval, "
      "nearest opener of equal depth (rightmost by position), type check (docs/dyck-and-khop.md)";
  return cfg;
}

// Token rows: BOS, or open/close and the bracket's type; each position
// feature into its own coordinate.
void embed_brackets(const Layout& c, model::Transformer& t) {
  t.embed(0, c.bos) = 1;
  for (int p = 0; p < 2 * c.k; ++p) {
    const int tok = p + 1, type = p / 2;
    if (p % 2 == 0) {
      t.embed(tok, c.open) = 1;
      t.embed(tok, c.open_type + type) = 1;
    } else {
      t.embed(tok, c.close) = 1;
      t.embed(tok, c.close_type + type) = 1;
    }
  }
  const int features[] = {c.one, c.j, c.j2, c.inv, c.frac};
  for (int f = 0; f < 5; ++f) t.pos_proj(features[f], f) = 1;
}

// Layer 0: A_i = (#open - #close in 0..i)/(i+1), uniform (W_Q = W_K = 0).
void write_depth_average(const Layout& c, model::LayerWeights& layer) {
  model::HeadWeights& h = layer.heads[0];
  h.v(0, c.open) = 1;
  h.v(0, c.close) = -1;
  h.o(c.avg, 0) = 1;
}

// Layer 1: depth retrieval and the depth sign.
void write_depth_and_sign(const Layout& c, model::LayerWeights& f) {
  model::HeadWeights& r = f.heads[0];
  r.q(0, c.avg) = 2;
  r.q(1, c.inv) = -1;
  r.k(0, c.j) = 1;
  r.k(1, c.j2) = 1;
  r.v(0, c.j) = 1;
  r.v(1, c.j2) = 1;
  r.o(c.depth, 0) = 1;
  r.o(c.depth2, 1) = 1;
  model::HeadWeights& s = f.heads[1];
  s.q(0, c.avg) = 1;
  s.q(0, c.inv) = 0.5;
  s.k(0, c.one) = 1;
  s.k(0, c.bos) = -1;
  s.v(0, c.bos) = 1;
  s.o(c.neg_raw, 0) = 1;
  // neg = rho(neg_raw - BOS), rho(a) = ReLU(2a - 1/2) - ReLU(2a - 3/2).
  for (int u = 0; u < 2; ++u) {
    f.fc1(u, c.neg_raw) = 2;
    f.fc1(u, c.bos) = -2;
  }
  f.b1(0) = -0.5;
  f.b1(1) = -1.5;
  f.fc2(c.neg, 0) = 1;
  f.fc2(c.neg, 1) = -1;
}

// Layer 2: the nearest earlier opener whose depth equals the depth before i.
void write_matching(const Layout& c, model::LayerWeights& f) {
  model::HeadWeights& m = f.heads[0];
  m.q(0, c.depth) = 2;
  m.q(0, c.one) = 2;
  m.q(1, c.one) = -1;
  m.q(2, c.one) = -2;
  m.q(3, c.one) = 1;
  m.k(0, c.depth) = 1;
  m.k(1, c.depth2) = 1;
  m.k(2, c.close) = 1;
  m.k(3, c.frac) = 1;
  for (int ty = 0; ty < c.k; ++ty) {
    m.v(ty, c.open_type + ty) = 1;
    m.o(c.match + ty, ty) = 1;
  }
  // bad_close = ReLU([close]) - sum_t ReLU(closeType_t + match_t - 1).
  f.fc1(0, c.close) = 1;
  f.fc2(c.bad_close, 0) = 1;
  for (int ty = 0; ty < c.k; ++ty) {
    f.fc1(1 + ty, c.close_type + ty) = 1;
    f.fc1(1 + ty, c.match + ty) = 1;
    f.b1(1 + ty) = -1;
    f.fc2(c.bad_close, 1 + ty) = -1;
  }
}

// Layer 3: BOS (score 1/2) against any bad position (score >= 1).
void write_accept(const Layout& c, model::LayerWeights& f) {
  model::HeadWeights& b = f.heads[0];
  b.q(0, c.one) = 1;
  b.q(1, c.one) = 0.5;
  b.k(0, c.neg) = 1;
  b.k(0, c.bad_close) = 1;
  b.k(1, c.bos) = 1;
  b.v(0, c.bos) = 1;
  b.o(c.no_bad, 0) = 1;
  f.fc1(0, c.no_bad) = 1;
  f.fc1(0, c.depth) = -1;
  f.fc2(c.y, 0) = 1;
}

}  // namespace

model::Transformer build_dyck(const std::string& pairs) {
  std::set<char> distinct(pairs.begin(), pairs.end());
  if (pairs.empty() || pairs.size() % 2 || distinct.size() != pairs.size()) {
    throw InputError(fmt::format("Dyck construction: '{}' is not a list of distinct open/close bracket pairs",
                                 sym::encode(pairs)));
  }
  const Layout c(static_cast<int>(pairs.size() / 2));
  model::Transformer t = model::Transformer::zeros(dyck_config(pairs, c));
  embed_brackets(c, t);
  write_depth_average(c, t.layers[0]);
  write_depth_and_sign(c, t.layers[1]);
  write_matching(c, t.layers[2]);
  write_accept(c, t.layers[3]);
  return t;
}

}  // namespace softhat::compile
