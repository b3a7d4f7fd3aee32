// The memory one word takes in the engine, estimated before anything is
// allocated, and the limit checked against it.
#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <stdexcept>

#include "model/buffers.h"
#include "model/forward.h"
#include "util/error.h"
#include "util/memory.h"

namespace softhat::model {

std::size_t word_memory_bytes(const Transformer& t, std::size_t n, const RunOptions& options) {
  const ModelConfig& cfg = t.config;
  // Per position: phi, the residual stream X and its layer delta, the widest
  // FFN layer, one head's Q, K, V and output (double, plus float copies),
  // the token id; plus what the options keep.
  std::size_t ffn = 0, head = 0;
  for (const LayerWeights& lw : t.layers) {
    ffn = std::max<std::size_t>(ffn, static_cast<std::size_t>(lw.fc1.rows()));
    for (const HeadWeights& hw : lw.heads) {
      head = std::max<std::size_t>(head, static_cast<std::size_t>(2 * hw.q.rows() + 2 * hw.k.rows() + 4 * hw.v.rows()));
    }
  }
  const std::size_t d = static_cast<std::size_t>(cfg.d_model);
  std::size_t per_position = 8 * (static_cast<std::size_t>(cfg.position_width()) + 3 * d + ffn + head) + 4;
  if (options.keep_all_states) per_position += 8 * d;
  if (options.keep_layer_inputs) per_position += 8 * d * t.layers.size();
  const std::size_t positions = n + 1;
  if (positions > std::numeric_limits<std::size_t>::max() / per_position) return std::numeric_limits<std::size_t>::max();
  return positions * per_position;
}

void check_memory_limit(const Transformer& t, std::size_t n, const RunOptions& options) {
  // Checked for every word: the message is formatted only for a word over
  // the limit (formatting it every time was 1% of a run of a small model).
  util::check_memory(word_memory_bytes(t, n, options), options.max_memory,
                     [n] { return fmt::format("a word of {} symbols in the engine", n); });
}

void buffer_allocation_failed(std::size_t bytes) { util::allocation_failed(bytes, "the engine's buffers"); }

}  // namespace softhat::model
