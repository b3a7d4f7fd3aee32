#include "model/transformer.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "util/memory.h"

namespace softhat::model {

std::uint64_t Transformer::parameter_count(const ModelConfig& config) {
  // In 128 bits, so that absurd dimensions (a corrupt file's) cannot wrap.
  using U = unsigned __int128;
  const U d = static_cast<U>(std::max(0, config.d_model));
  U count = static_cast<U>(std::max(0, config.vocabulary())) * d + d * static_cast<U>(std::max(0, config.position_width()));
  for (const LayerConfig& lc : config.layers) {
    for (const HeadConfig& hc : lc.heads) {
      count += (2 * static_cast<U>(std::max(0, hc.d_head)) + 2 * static_cast<U>(std::max(0, hc.d_value))) * d;
    }
    const U f = static_cast<U>(std::max(0, lc.ffn_hidden));
    count += 2 * f * d + f + d;
  }
  const U cap = std::numeric_limits<std::uint64_t>::max();
  return static_cast<std::uint64_t>(count > cap ? cap : count);
}

void Transformer::check_memory(const ModelConfig& config, std::size_t max_memory, std::string_view what) {
  const std::uint64_t weights = parameter_count(config);
  util::check_memory(util::saturating_product({static_cast<std::size_t>(weights), sizeof(double)}), max_memory, [&] {
    return fmt::format("{} ({} weights: width {}, {} position features, {} layers)", what, weights, config.d_model,
                       config.position_width(), config.layers.size());
  });
}

Transformer Transformer::zeros(const ModelConfig& config) {
  config.validate();
  Transformer t;
  t.config = config;
  const int d = config.d_model;
  t.embed = Matrix::Zero(config.vocabulary(), d);
  t.pos_proj = Matrix::Zero(d, config.position_width());
  for (const LayerConfig& lc : config.layers) {
    LayerWeights lw;
    for (const HeadConfig& hc : lc.heads) {
      lw.heads.push_back({Matrix::Zero(hc.d_head, d), Matrix::Zero(hc.d_head, d), Matrix::Zero(hc.d_value, d),
                          Matrix::Zero(d, hc.d_value)});
    }
    lw.fc1 = Matrix::Zero(lc.ffn_hidden, d);
    lw.b1 = Vector::Zero(lc.ffn_hidden);
    lw.fc2 = Matrix::Zero(d, lc.ffn_hidden);
    lw.b2 = Vector::Zero(d);
    t.layers.push_back(std::move(lw));
  }
  return t;
}

int Transformer::token(char symbol) const {
  const std::size_t k = config.alphabet.find(symbol);
  return k == std::string::npos ? -1 : static_cast<int>(k) + 1;
}

}  // namespace softhat::model
