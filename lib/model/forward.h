// The forward pass of a transformer acceptor, from its weights alone
// (docs/model-format.md, "Forward pass").
//
// x_j = embed[token_j] + pos_proj . phi(j, n) for j = 0 (BOS) .. n; then per
// layer X += sum_h attention_h(X) o_proj_h^T, X += fc2(ReLU(fc1 X + b1)) + b2;
// the readout coordinate at position n decides.
//
// Attention is computed query-block by key-block with an online softmax
// (running maximum, running sum, rescaled accumulator), so the n x n matrix is
// never materialized and one word costs O(n * d) memory. Scores q.k are
// accumulated in double in every precision. A row with no finite score is an
// error, never a NaN.
//
// Hard modes use the same weights: each head attends to its argmax set
// (exact equality of the double scores) as it declares: rightmost or leftmost
// unique-hard, or average-hard.
#pragma once

#include <algorithm>
#include <cstddef>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/transformer.h"

namespace softhat::model {

enum class Precision : std::uint8_t { kDouble, kFloat };

struct RunOptions {
  AttentionMode mode = AttentionMode::kSoftmax;
  std::optional<BetaSchedule> beta;  // overrides the model's schedule
  bool trace = false;                // record margins (cheap when off)
  bool keep_state = false;           // return the final residual vector at the read position
  bool keep_all_states = false;      // return the final residual stream (every position)
  bool linear_scan = true;  // O(n * classes) attention for heads with at most 16 distinct queries or keys
  bool force_average = false;  // hard mode: every head average-hard, whatever it declares (an AHAT)
  bool keep_layer_inputs = false;  // return the residual stream at each layer's input (for attention maps)
  // The exact dense reference: every product a dense GEMM, every layer full
  // width, every head on the blocked paths (linear_scan ignored). The fast
  // paths (sparse and fused products, narrow layers, linear scans) are tested
  // against it: same verdicts, values equal up to rounding.
  bool reference = false;
  int query_block = 64;
  int key_block = 256;
  // The most memory one word may take (residual streams, per-head queries,
  // keys and values, FFN activations; estimated before anything is
  // allocated). A longer word is refused with std::invalid_argument naming
  // the estimate, not left to exhaust the machine. 0: no limit.
  std::size_t max_memory = std::size_t{8} << 30;
};

// The bytes one word of length n takes in the engine (the estimate that
// RunOptions::max_memory is checked against).
std::size_t word_memory_bytes(const Transformer& model, std::size_t n, const RunOptions& options);

inline constexpr double kNoGap = std::numeric_limits<double>::infinity();

// Minima over the softmax rows of one head (or of the whole word).
struct MarginStats {
  double min_target_mass = 1.0;  // weight on the argmax set of the scores
  double min_gap = kNoGap;       // best score minus best score outside the argmax set
  double min_scaled_gap = kNoGap;  // the same times beta(n)
  std::int64_t rows = 0;
  void merge(const MarginStats& o);
  // One softmax row: its target mass and its score gap (+inf if none).
  void add_row(double target_mass, double gap, double beta);
};

struct HeadMargins {
  int layer = 0;
  int head = 0;
  MarginStats stats;
};

struct RunResult {
  bool accepted = false;
  double y = 0;              // the readout coordinate at position n
  double output_margin = 0;  // |y - threshold|
  double beta = 0;           // beta(n) used
  std::optional<MarginStats> margins;  // softmax mode with trace on
  std::vector<HeadMargins> head_margins;
  std::optional<std::string> output;  // transducers: one output symbol per position 1..n
  double min_symbol_margin = kNoGap;  // transducers: min over positions of |best coordinate - threshold|
  std::vector<double> final_state;  // keep_state: the residual vector at position n
  Matrix states;                    // keep_all_states: (n+1) x d
  std::vector<Matrix> layer_inputs;  // keep_layer_inputs: per layer, (n+1) x d
};

// Whether query i may attend to key j under a mask (BOS, j = 0, always).
bool key_visible(Mask mask, std::int64_t i, std::int64_t j);

// A transducer's output read from a residual stream ((n+1) x d, row 0 BOS):
// one symbol per position 1..n; min_margin (if given) receives the smallest
// |best coordinate - threshold| (+inf for the empty word).
std::string read_transduction(const TransducerReadout& readout, const Matrix& states, double* min_margin = nullptr);

// Program models (config.program): the padded input of a word, and the
// output's post-processing from the final residual stream (range flags, then
// the pad symbols dropped). program_output throws std::invalid_argument, naming
// the position, when a range flag is set. Both do nothing for other models.
std::string program_input(const ModelConfig& config, std::string_view word);
void program_output(const ModelConfig& config, const Matrix& states, RunResult& result);

class Runner;

// The prepared weights of one model. Immutable once built: any number of
// threads may run words on one Engine, each through its own Runner.
class Engine {
 public:
  // Prepares the weights in the requested precision (once, not per word).
  Engine(Transformer model, Precision precision = Precision::kDouble);
  ~Engine();
  Engine(Engine&&) noexcept;

  // One word with buffers of its own, allocated for this call (the same
  // result as Runner::run). Callers running many words hold a Runner.
  RunResult run(std::string_view word, const RunOptions& options = {}) const;
  const Transformer& model() const { return model_; }

  struct Impl;

 private:
  friend class Runner;
  Transformer model_;
  std::unique_ptr<Impl> impl_;
};

// Runs words on an Engine, owning the buffers they reuse (residual streams,
// per-head queries, keys and values, FFN activations): repeated words of one
// length allocate nothing. One Runner per thread; the Engine must outlive it
// and stay where it is. After a run that throws, the buffers are given back
// (also when an allocation failed), and the Runner stays usable.
class Runner {
 public:
  explicit Runner(const Engine& engine);
  ~Runner();
  Runner(Runner&&) noexcept;

  // Throws std::invalid_argument if the word has a symbol outside the alphabet
  // or would need more than options.max_memory; std::runtime_error if an
  // attention row has no finite score or the residual stream overflows.
  // A program model's word is padded first (program_input), and its output
  // post-processed (program_output).
  RunResult run(std::string_view word, const RunOptions& options = {});
  const Engine& engine() const { return *engine_; }

  struct Workspace;

 private:
  RunResult run_padded(std::string_view word, const RunOptions& options);
  const Engine* engine_;
  std::unique_ptr<Workspace> workspace_;
};

// A Runner is fastest on words of one length in a row: the buffers sized for
// a word serve the next word of its length, where a word of another length
// reallocates them (and the loops' branch histories stay warm). A result
// never depends on the words run before it, so callers holding many words
// run them in length_order: indices first .. first + count - 1 sorted by
// length(i), ties in their order. Streams gather up to kBatchWords words
// (and about kBatchBytes bytes of them) into one batch.
inline constexpr std::size_t kBatchWords = 16384;
inline constexpr std::size_t kBatchBytes = std::size_t{4} << 20;
template <typename Length>
std::vector<std::size_t> length_order(std::size_t first, std::size_t count, Length&& length) {
  std::vector<std::size_t> lengths(count), order(count);
  std::size_t longest = 0;
  for (std::size_t k = 0; k < count; ++k) {
    lengths[k] = static_cast<std::size_t>(length(first + k));
    longest = std::max(longest, lengths[k]);
  }
  if (longest <= 4 * count + 64) {
    // A counting sort (stable, as the merge sort below): a batch's words are
    // short next to their number (the merge sort was 7% of a run of a 0-layer model).
    std::vector<std::size_t> start(longest + 2, 0);
    for (const std::size_t l : lengths) ++start[l + 1];
    for (std::size_t l = 1; l < start.size(); ++l) start[l] += start[l - 1];
    for (std::size_t k = 0; k < count; ++k) order[start[lengths[k]]++] = first + k;
    return order;
  }
  for (std::size_t k = 0; k < count; ++k) order[k] = first + k;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return lengths[a - first] < lengths[b - first]; });
  return order;
}

// The attention weights of one head on one word, as a picture shows them.
struct AttentionMap {
  int layer = 0, head = 0;
  std::string label;
  AttentionMode mode = AttentionMode::kSoftmax;
  double beta = 0;
  Matrix weights;  // (n+1) x (n+1); 0 where masked
  std::vector<std::vector<std::int64_t>> targets;  // per query row: its argmax set (best raw scores)
  std::vector<double> target_mass;  // per row: weight on the argmax set
  std::vector<double> gap;          // per row: best score minus best outside the argmax set (+inf if none)
};

// Every head's weights on `word` (softmax at the run's beta, or hard as each
// head declares; force_average: every head average-hard), from the residual
// stream at each layer's input.
std::vector<AttentionMap> attention_maps(const Engine& engine, std::string_view word, const RunOptions& options);

}  // namespace softhat::model
