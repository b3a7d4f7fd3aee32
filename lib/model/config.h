// The configuration of a transformer acceptor: everything about a model that
// is not a weight (docs/model-format.md is the authoritative description).
//
// Conventions fixed here. Position 0 is BOS, then w_1..w_n; token ids are 0
// for BOS and 1..|alphabet| for the symbols in alphabet order. Attention
// masks name the key positions j a query i may attend to; BOS (j = 0) is
// visible under every mask. Scores are s_ij = q_i . k_j; softmax attention
// uses logits beta(n) * s_ij with one inverse temperature for the whole model,
// beta(n) = c * (n+1)^a * ln(n+1)^b. The decision is read at position n (BOS
// for the empty word): accept iff the readout coordinate is >= threshold.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace softhat::model {

enum class Mask : std::uint8_t {
  kNone,          // every j
  kStrictFuture,  // j < i   (future positions masked)
  kFuture,        // j <= i
  kStrictPast,    // j > i
  kPast,          // j >= i
};

// The hard attention a head simulates (used in --mode hard).
enum class HardKind : std::uint8_t {
  kRightmost,  // all weight on the largest j among the best scores
  kLeftmost,   // all weight on the smallest j among the best scores
  kAverage,    // equal weight on every best-scoring j
};

enum class AttentionMode : std::uint8_t { kSoftmax, kHard };

// A position-embedding feature: a function of (j, n). kModOneHot expands to
// m features [j mod m == r] for r = 0..m-1; every other kind is one feature.
struct PositionFeature {
  enum class Kind : std::uint8_t {
    kOne,               // 1
    kFraction,          // j/(n+1)
    kIndex,             // j
    kLength,            // n
    kFractionSquared,   // (j/(n+1))^2
    kIndexSquared,      // j^2
    kInverse,           // 1/(j+1)
    kModOneHot,         // [j mod m == r], r = 0..m-1
    kAlternating,       // (-1)^j
  };
  Kind kind = Kind::kOne;
  int m = 0;  // kModOneHot only

  int width() const { return kind == Kind::kModOneHot ? m : 1; }
  std::string name() const;  // "one", "j/(n+1)", "j mod 3", ...
  // Writes width() values for position j of a word of length n.
  void evaluate(std::int64_t j, std::int64_t n, double* out) const;
};

struct BetaSchedule {
  double c = 1.0;
  double a = 0.0;  // exponent of (n+1)
  double b = 0.0;  // exponent of ln(n+1)
  double at(std::int64_t n) const;
  std::string describe() const;  // "3*(n+1)", "2", "1*(n+1)^2*ln(n+1)"
};

struct HeadConfig {
  int d_head = 1;   // query/key width
  int d_value = 1;  // value width (o_proj maps it back to d_model)
  Mask mask = Mask::kStrictFuture;
  HardKind hard = HardKind::kRightmost;
  std::string label;  // what it computes, e.g. "sub:(a S b)"
};

struct LayerConfig {
  std::vector<HeadConfig> heads;
  int ffn_hidden = 0;
  std::string label;
};

struct Readout {
  int coordinate = 0;
  double threshold = 0.5;
};

// A transducer's readout (absent for acceptors): at every position i = 1..n
// the output symbol is symbols[c] for the coordinate coordinates[c] holding
// the largest value, if that value is >= threshold; else default_symbol.
struct TransducerReadout {
  std::vector<int> coordinates;
  std::string symbols;  // one per coordinate (symbol codes)
  // Instead of `symbols` (which is then empty): one string of symbol codes per
  // coordinate, for program models whose outputs are strings (S-RASP concat).
  std::vector<std::string> strings;
  char default_symbol = '~';
  double threshold = 0.5;
};

// The model file's format version (docs/model-format.md). 2: the alphabet
// and the transducer symbols are UTF-8 text, one code point per symbol. 1
// (still read): ASCII alphabets only, one byte per symbol.
// Models compiled from S-RASP programs (rasp/compile.h; model-format.md,
// "Program models"): the model reads the word padded with pad(n) copies of
// pad_symbol (a word holding pad_symbol itself is refused), its output drops
// every pad_symbol, and a word whose run sets a range flag (> 1/2 at any
// position after BOS, pads included) is refused: an integer left the range
// the construction is exact for.
struct ProgramIo {
  std::vector<std::int64_t> pad;  // pad(n) = sum_k pad[k] n^k (empty: no padding)
  char pad_symbol = '#';
  struct Flag {
    int coordinate = 0;
    std::string what;
  };
  std::vector<Flag> range_flags;
  // n + pad(n); throws std::invalid_argument if pad(n) < 0 or the length overflows.
  std::size_t padded_length(std::size_t n) const;
};

// A claim that float32 gives this model's verdicts (compile --float32;
// verify/float32.h): on every checked word up to max_length the float32 run
// had the double run's verdict (transducers: output), and the double run's
// margin was at least `safety` times the two runs' difference. `verify`
// runs a model that carries it in float32 unless told otherwise.
struct Float32Claim {
  std::size_t max_length = 0;
  std::uint64_t words = 0;         // words checked
  double min_margin = 0;           // smallest double margin over those words
  double max_deviation = 0;        // largest |float32 - double| of the readout
  double max_state_deviation = 0;  // the same over every coordinate of the final residual stream (informative)
  double safety = 8;               // required margin / deviation
};

inline constexpr int kFormatVersion = 2;
inline constexpr int kOldestFormatVersion = 1;

struct ModelConfig {
  int format_version = kFormatVersion;
  std::string alphabet;  // symbol codes (util/symbols.h); token k is the k-th symbol
  int d_model = 1;
  std::vector<std::string> residual_labels;  // one per residual coordinate
  std::vector<PositionFeature> position_features;
  BetaSchedule beta;
  std::vector<LayerConfig> layers;
  Readout readout;
  std::optional<TransducerReadout> transducer;  // set for transducers (one output symbol per position)
  std::optional<ProgramIo> program;             // set for models compiled from S-RASP programs
  std::optional<Float32Claim> float32;          // set by compile --float32 when the check holds
  std::map<std::string, std::string> notes;  // free-form provenance (formula, construction, ...)

  int position_width() const;  // sum of feature widths
  int vocabulary() const { return static_cast<int>(alphabet.size()) + 1; }
  // Throws std::invalid_argument describing the first inconsistency.
  void validate() const;
};

// A readable summary: width, position features, beta schedule, and per layer
// each head's mask, hard kind, sizes and label, and the FFN width.
std::string describe_config(const ModelConfig& config);

const char* mask_name(Mask m);
const char* hard_kind_name(HardKind k);
// Parse the names above; throw std::invalid_argument on unknown names.
Mask parse_mask(const std::string& name);
HardKind parse_hard_kind(const std::string& name);
PositionFeature parse_position_feature(const std::string& name);

}  // namespace softhat::model
