// A transformer acceptor: its configuration and its weights.
//
// Matrix convention, written down once (like torch.nn.Linear): a weight of
// shape [out, in] maps a row vector x to y = x W^T (+ b). Matrices are stored
// row-major so the file's bytes and PyTorch's tensors have the same layout.
//
//   embed.weight                        [|alphabet|+1, d]  token 0 is BOS
//   pos_proj.weight                     [d, F]             F = position features
//   layers.L.attn.H.q_proj.weight       [d_head, d]
//   layers.L.attn.H.k_proj.weight       [d_head, d]
//   layers.L.attn.H.v_proj.weight       [d_value, d]
//   layers.L.attn.H.o_proj.weight       [d, d_value]
//   layers.L.ffn.fc1.weight / .bias     [hidden, d] / [hidden]
//   layers.L.ffn.fc2.weight / .bias     [d, hidden] / [d]
//
// for_each_tensor() lists every tensor with its name and shape; the file
// writer, the reader, the equality test and the exporters all use it, so a
// tensor cannot be forgotten by one of them.
#pragma once

#include <Eigen/Core>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "model/config.h"

namespace softhat::model {

using Matrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using Vector = Eigen::Matrix<double, 1, Eigen::Dynamic, Eigen::RowMajor>;

struct HeadWeights {
  Matrix q, k, v, o;
};

struct LayerWeights {
  std::vector<HeadWeights> heads;
  Matrix fc1;
  Vector b1;
  Matrix fc2;
  Vector b2;
};

struct Transformer {
  ModelConfig config;
  Matrix embed;
  Matrix pos_proj;
  std::vector<LayerWeights> layers;

  // All weights zero, shaped by the configuration (validated first).
  static Transformer zeros(const ModelConfig& config);
  // How many weights a configuration has (saturating; nothing allocated).
  static std::uint64_t parameter_count(const ModelConfig& config);
  // LimitError (Limit::kMemory) if the configuration's weights would take
  // more than max_memory bytes (0: no limit), checked before zeros()
  // allocates them: "<what> (N weights: width d, F position features, L
  // layers) needs about ..., over the limit of ...".
  static void check_memory(const ModelConfig& config, std::size_t max_memory, std::string_view what);
  // Token id of a symbol: 1..|alphabet|, or -1 if it is not in the alphabet.
  int token(char symbol) const;
};

// One tensor as the visitor sees it: name, shape ([n] for a bias), data.
template <typename Scalar>
struct TensorView {
  std::string name;
  std::vector<std::int64_t> shape;
  Scalar* data;
  std::int64_t size() const {
    std::int64_t s = 1;
    for (std::int64_t d : shape) s *= d;
    return s;
  }
};

template <typename Model, typename Visit>
void for_each_tensor(Model& model, Visit&& visit) {
  using Scalar = std::conditional_t<std::is_const_v<Model>, const double, double>;
  auto matrix = [&](std::string name, auto& m) {
    visit(TensorView<Scalar>{std::move(name), {m.rows(), m.cols()}, m.data()});
  };
  auto vector = [&](std::string name, auto& v) { visit(TensorView<Scalar>{std::move(name), {v.cols()}, v.data()}); };
  matrix("embed.weight", model.embed);
  matrix("pos_proj.weight", model.pos_proj);
  for (std::size_t l = 0; l < model.layers.size(); ++l) {
    auto& layer = model.layers[l];
    const std::string prefix = "layers." + std::to_string(l) + ".";
    for (std::size_t h = 0; h < layer.heads.size(); ++h) {
      const std::string head = prefix + "attn." + std::to_string(h) + ".";
      matrix(head + "q_proj.weight", layer.heads[h].q);
      matrix(head + "k_proj.weight", layer.heads[h].k);
      matrix(head + "v_proj.weight", layer.heads[h].v);
      matrix(head + "o_proj.weight", layer.heads[h].o);
    }
    matrix(prefix + "ffn.fc1.weight", layer.fc1);
    vector(prefix + "ffn.fc1.bias", layer.b1);
    matrix(prefix + "ffn.fc2.weight", layer.fc2);
    vector(prefix + "ffn.fc2.bias", layer.b2);
  }
}

}  // namespace softhat::model
