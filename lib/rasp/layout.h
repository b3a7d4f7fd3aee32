#pragma once

// The compiler's bookkeeping: residual coordinates with the time each becomes
// ready, and per layer the heads and FFN units that write them. Time 0 is the
// embedding; layer L's attention writes at 2L+1 and its FFN at 2L+2, so a
// head reads what is ready before 2L+1 and a unit what is ready before 2L+2.

#include <algorithm>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "model/config.h"

namespace softhat::rasp::detail {

using Lin = std::map<int, double>;  // coordinate -> coefficient: a linear form of the residual

inline Lin lin_add(Lin a, const Lin& b, double scale = 1.0) {
  for (const auto& entry : b) a[entry.first] += scale * entry.second;
  for (auto it = a.begin(); it != a.end();) it = it->second == 0 ? a.erase(it) : std::next(it);
  return a;
}
inline Lin lin_scale(const Lin& a, double s) { return lin_add({}, a, s); }

struct Unit {  // one hidden ReLU: out[c] += w * ReLU(in . x + bias)
  Lin in;
  double bias = 0;
  std::vector<std::pair<int, double>> out;
};

struct HeadSpec {
  model::Mask mask = model::Mask::kNone;
  std::vector<Lin> q, k, v;  // rows: q_t[r] = q[r] . x_t, and so on
  std::vector<int> out;      // value row r is added to coordinate out[r]
  std::string label;
  double gap_coefficient = 0;  // the analytic gap coefficient / M^power (0: uniform)
  int gap_power = 0;
};

struct LayerSpec {
  std::vector<HeadSpec> heads;
  std::vector<Unit> units;
};

class Layout {
 public:
  int fresh(std::string label, int ready) {
    labels_.push_back(std::move(label));
    ready_.push_back(ready);
    return static_cast<int>(labels_.size()) - 1;
  }
  int ready(const Lin& l) const {
    int r = 0;
    for (const auto& entry : l) r = std::max(r, ready_[static_cast<std::size_t>(entry.first)]);
    return r;
  }
  static int attention_layer(int ready) { return (ready + 1) / 2; }
  static int ffn_layer(int ready) { return ready / 2; }
  // A fresh coordinate written by layer L's attention (or FFN).
  int attention_output(int layer, std::string label) { return fresh(std::move(label), 2 * layer + 1); }
  int ffn_output(int layer, std::string label) { return fresh(std::move(label), 2 * layer + 2); }
  LayerSpec& layer(int l) {
    if (layers_.size() <= static_cast<std::size_t>(l)) layers_.resize(static_cast<std::size_t>(l) + 1);
    return layers_[static_cast<std::size_t>(l)];
  }
  const std::vector<LayerSpec>& layers() const { return layers_; }
  const std::vector<std::string>& labels() const { return labels_; }
  int size() const { return static_cast<int>(labels_.size()); }

 private:
  std::vector<std::string> labels_;
  std::vector<int> ready_;
  std::vector<LayerSpec> layers_;
};

}  // namespace softhat::rasp::detail
