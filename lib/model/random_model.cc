#include "model/random_model.h"

#include "util/random.h"

namespace softhat::model {

namespace {
double uniform(std::mt19937_64& rng, double lo, double hi) {
  return lo + (hi - lo) * static_cast<double>(rng() >> 11) * 0x1.0p-53;
}
int pick(std::mt19937_64& rng, int lo, int hi) {
  return static_cast<int>(uniform_int(rng, static_cast<std::uint64_t>(lo), static_cast<std::uint64_t>(hi)));
}
}  // namespace

Transformer random_model(std::mt19937_64& rng, const RandomModelOptions& o) {
  ModelConfig c;
  c.alphabet = o.alphabet;
  c.d_model = pick(rng, 2, o.max_d_model);
  for (int i = 0; i < c.d_model; ++i) c.residual_labels.push_back("r" + std::to_string(i));
  using K = PositionFeature::Kind;
  const K kinds[] = {K::kOne,          K::kFraction, K::kIndex,     K::kLength,     K::kFractionSquared,
                     K::kIndexSquared, K::kInverse,  K::kModOneHot, K::kAlternating};
  for (K k : kinds) {
    if (pick(rng, 0, 2) == 0) continue;
    c.position_features.push_back(PositionFeature{k, k == K::kModOneHot ? pick(rng, 2, 4) : 0});
  }
  // (a braced list is evaluated left to right: the draws keep their order)
  c.beta = BetaSchedule{.c = uniform(rng, 0.5, 2.0),
                        .a = static_cast<double>(pick(rng, 0, 2)) / 2.0,
                        .b = static_cast<double>(pick(rng, 0, 1))};
  const int layers = pick(rng, 1, o.max_layers);
  for (int l = 0; l < layers; ++l) {
    LayerConfig lc;
    lc.ffn_hidden = pick(rng, 0, 6);
    const int heads = pick(rng, 0, o.max_heads);
    for (int h = 0; h < heads; ++h) {
      HeadConfig hc;
      hc.d_head = pick(rng, 1, 4);
      hc.d_value = pick(rng, 1, 3);
      hc.mask = static_cast<Mask>(pick(rng, 0, 4));
      hc.hard = static_cast<HardKind>(pick(rng, 0, 2));
      lc.heads.push_back(hc);
    }
    c.layers.push_back(lc);
  }
  c.readout = {pick(rng, 0, c.d_model - 1), uniform(rng, -0.5, 0.5)};
  Transformer t = Transformer::zeros(c);
  for_each_tensor(t, [&](const TensorView<double>& v) {
    for (std::int64_t k = 0; k < v.size(); ++k) v.data[k] = uniform(rng, -1.0, 1.0);
  });
  // Damp the unbounded features' projections.
  int col = 0;
  for (const PositionFeature& f : c.position_features) {
    const bool unbounded = f.kind == K::kIndex || f.kind == K::kLength || f.kind == K::kIndexSquared;
    if (unbounded) t.pos_proj.col(col) *= f.kind == K::kIndexSquared ? 1e-6 : 1e-3;
    col += f.width();
  }
  return t;
}

}  // namespace softhat::model
