#include "model/config.h"

#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <stdexcept>

#include "util/symbols.h"

namespace softhat::model {

std::string PositionFeature::name() const {
  switch (kind) {
    case Kind::kOne: return "one";
    case Kind::kFraction: return "j/(n+1)";
    case Kind::kIndex: return "j";
    case Kind::kLength: return "n";
    case Kind::kFractionSquared: return "(j/(n+1))^2";
    case Kind::kIndexSquared: return "j^2";
    case Kind::kInverse: return "1/(j+1)";
    case Kind::kModOneHot: return fmt::format("j mod {}", m);
    case Kind::kAlternating: return "(-1)^j";
  }
  return "?";
}

void PositionFeature::evaluate(std::int64_t j, std::int64_t n, double* out) const {
  const double jd = static_cast<double>(j), frac = jd / static_cast<double>(n + 1);
  switch (kind) {
    case Kind::kOne: *out = 1.0; return;
    case Kind::kFraction: *out = frac; return;
    case Kind::kIndex: *out = jd; return;
    case Kind::kLength: *out = static_cast<double>(n); return;
    case Kind::kFractionSquared: *out = frac * frac; return;
    case Kind::kIndexSquared: *out = jd * jd; return;
    case Kind::kInverse: *out = 1.0 / (jd + 1.0); return;
    case Kind::kModOneHot:
      for (int r = 0; r < m; ++r) out[r] = (j % m) == r ? 1.0 : 0.0;
      return;
    case Kind::kAlternating: *out = (j % 2 == 0) ? 1.0 : -1.0; return;
  }
}

std::string describe_config(const ModelConfig& c) {
  std::string pe;
  for (const PositionFeature& f : c.position_features) pe += (pe.empty() ? "" : ", ") + f.name();
  std::string out = fmt::format("transformer  {} layers, width {}, position features {}, beta(n) = {}\n",
                                c.layers.size(), c.d_model, pe, c.beta.describe());
  for (std::size_t l = 0; l < c.layers.size(); ++l) {
    out += fmt::format("  layer {}: {}\n", l, c.layers[l].label);
    for (std::size_t h = 0; h < c.layers[l].heads.size(); ++h) {
      const HeadConfig& hc = c.layers[l].heads[h];
      out += fmt::format("    head {}: {} ({}, {}, d_head {}, d_value {})\n", h, hc.label, mask_name(hc.mask),
                         hard_kind_name(hc.hard), hc.d_head, hc.d_value);
    }
    if (c.layers[l].ffn_hidden > 0) out += fmt::format("    ffn: {} hidden units\n", c.layers[l].ffn_hidden);
  }
  if (c.transducer) out += fmt::format("  output: one {} per position from {} coordinates, '{}' if none >= {}\n",
                                       c.transducer->strings.empty() ? "symbol" : "string",
                                       c.transducer->coordinates.size(), sym::encode(c.transducer->default_symbol),
                                       c.transducer->threshold);
  else out += fmt::format("  accept iff coordinate {} ({}) >= {}\n", c.readout.coordinate,
                          c.readout.coordinate < static_cast<int>(c.residual_labels.size())
                              ? c.residual_labels[c.readout.coordinate] : "", c.readout.threshold);
  return out;
}

PositionFeature parse_position_feature(const std::string& name) {
  using K = PositionFeature::Kind;
  for (K k : {K::kOne, K::kFraction, K::kIndex, K::kLength, K::kFractionSquared, K::kIndexSquared, K::kInverse,
              K::kAlternating}) {
    PositionFeature f{k, 0};
    if (f.name() == name) return f;
  }
  int m = 0;
  char rest = 0;
  if (std::sscanf(name.c_str(), "j mod %d%c", &m, &rest) == 1 && m >= 1 && m <= 1000000) {
    return PositionFeature{K::kModOneHot, m};
  }
  throw std::invalid_argument(fmt::format(
      "unknown position feature '{}' (known: one, j/(n+1), j, n, (j/(n+1))^2, j^2, 1/(j+1), j mod M, (-1)^j)",
      name));
}

std::size_t ProgramIo::padded_length(std::size_t n) const {
  // Horner's rule in 128 bits, checked after every step (pad(n) may be negative midway).
  const __int128 limit = static_cast<__int128>(std::numeric_limits<std::int64_t>::max());
  __int128 v = 0;
  for (std::size_t k = pad.size(); k-- > 0;) {
    v = v * static_cast<__int128>(n) + pad[k];
    if (v > limit || v < -limit) throw std::invalid_argument(fmt::format("the padding of a word of length {} overflows", n));
  }
  if (v < 0) throw std::invalid_argument(fmt::format("the padding polynomial is negative at n = {}", n));
  const __int128 total = v + static_cast<__int128>(n);
  if (total > limit) throw std::invalid_argument(fmt::format("the padded length of a word of length {} overflows", n));
  return static_cast<std::size_t>(total);
}

double BetaSchedule::at(std::int64_t n) const {
  const double np1 = static_cast<double>(n + 1);
  double beta = c;
  if (a == 1) beta *= np1;  // pow(x, 1) is exactly x: the common schedule without a pow per word
  else if (a != 0) beta *= std::pow(np1, a);
  if (b != 0) beta *= std::pow(std::log(np1), b);
  return beta;
}

std::string BetaSchedule::describe() const {
  std::string s = fmt::format("{}", c);
  if (a == 1) s += "*(n+1)";
  else if (a != 0) s += fmt::format("*(n+1)^{}", a);
  if (b == 1) s += "*ln(n+1)";
  else if (b != 0) s += fmt::format("*ln(n+1)^{}", b);
  return s;
}

int ModelConfig::position_width() const {
  int w = 0;
  for (const PositionFeature& f : position_features) w += f.width();
  return w;
}

void ModelConfig::validate() const {
  auto fail = [](const std::string& what) { throw std::invalid_argument(what); };
  if (format_version < kOldestFormatVersion || format_version > kFormatVersion) {
    fail(fmt::format("format version {} is not supported (this softhat reads versions {} to {})", format_version,
                     kOldestFormatVersion, kFormatVersion));
  }
  if (alphabet.empty()) fail("the model's alphabet is empty");
  for (std::size_t i = 0; i < alphabet.size(); ++i) {
    const auto u = static_cast<unsigned char>(alphabet[i]);
    const bool bad = u < 0x80 ? u <= ' ' || u == 0x7f : sym::not_a_symbol(sym::code_point(alphabet[i])) != nullptr;
    if (bad || alphabet.find(alphabet[i]) != i) {
      fail(fmt::format("the model's alphabet has a bad or repeated symbol at {}", i));
    }
  }
  if (d_model < 1 || d_model > 1'000'000) fail(fmt::format("d_model {} is out of range", d_model));
  if (static_cast<int>(residual_labels.size()) != d_model) {
    fail(fmt::format("{} residual labels for d_model {}", residual_labels.size(), d_model));
  }
  if (readout.coordinate < 0 || readout.coordinate >= d_model) {
    fail(fmt::format("readout coordinate {} is outside 0..{}", readout.coordinate, d_model - 1));
  }
  if (!std::isfinite(readout.threshold)) fail("the readout threshold is not finite");
  if (transducer) {
    if (!transducer->strings.empty() && !transducer->symbols.empty()) {
      fail("the transducer readout has both symbols and strings");
    }
    const std::size_t outputs = transducer->strings.empty() ? transducer->symbols.size() : transducer->strings.size();
    if (transducer->coordinates.empty() || transducer->coordinates.size() != outputs) {
      fail("the transducer readout needs one symbol (or string) per coordinate");
    }
    for (const std::string& s : transducer->strings) {
      if (s.empty()) fail("a transducer string is empty");
    }
    for (int c : transducer->coordinates) {
      if (c < 0 || c >= d_model) fail(fmt::format("transducer coordinate {} is outside 0..{}", c, d_model - 1));
    }
    if (!std::isfinite(transducer->threshold)) fail("the transducer threshold is not finite");
  }
  if (float32) {
    const Float32Claim& f = *float32;
    if (!(std::isfinite(f.min_margin) && f.min_margin >= 0 && std::isfinite(f.max_deviation) && f.max_deviation >= 0 &&
          std::isfinite(f.max_state_deviation) && f.max_state_deviation >= 0 && std::isfinite(f.safety) &&
          f.safety >= 1)) {
      fail("the float32 claim needs finite margin and deviation >= 0 and a safety factor >= 1");
    }
    if (!(f.min_margin > 0) || f.max_length < 1 || f.words < 1) {
      fail("the float32 claim needs a margin > 0, a length >= 1 and at least one word checked");
    }
    if (f.min_margin < f.safety * f.max_deviation) fail("the float32 claim's margin is below safety x deviation");
  }
  if (program) {
    if (!transducer) fail("a program model is a transducer: it needs a transducer readout");
    if (alphabet.find(program->pad_symbol) == std::string::npos) fail("the program's pad symbol is not in the alphabet");
    if (program->pad.size() > 8) fail("the padding polynomial has a degree above 7");
    for (const ProgramIo::Flag& f : program->range_flags) {
      if (f.coordinate < 0 || f.coordinate >= d_model) {
        fail(fmt::format("range flag coordinate {} is outside 0..{}", f.coordinate, d_model - 1));
      }
    }
  }
  if (!std::isfinite(beta.c) || !std::isfinite(beta.a) || !std::isfinite(beta.b) || beta.c <= 0) {
    fail("the inverse temperature schedule needs a finite c > 0 and finite exponents");
  }
  for (const PositionFeature& f : position_features) {
    if (f.kind == PositionFeature::Kind::kModOneHot && (f.m < 1 || f.m > 1000000)) {
      fail(fmt::format("position feature j mod {} is out of range", f.m));
    }
  }
  for (std::size_t l = 0; l < layers.size(); ++l) {
    if (layers[l].ffn_hidden < 0 || layers[l].ffn_hidden > 10'000'000) {
      fail(fmt::format("layer {}: ffn_hidden {} is out of range", l, layers[l].ffn_hidden));
    }
    for (std::size_t h = 0; h < layers[l].heads.size(); ++h) {
      const HeadConfig& head = layers[l].heads[h];
      if (head.d_head < 0 || head.d_head > 1'000'000 || head.d_value < 0 || head.d_value > 1'000'000) {
        fail(fmt::format("layer {} head {}: widths out of range", l, h));
      }
    }
  }
}

const char* mask_name(Mask m) {
  switch (m) {
    case Mask::kNone: return "none";
    case Mask::kStrictFuture: return "strict-future";
    case Mask::kFuture: return "future";
    case Mask::kStrictPast: return "strict-past";
    case Mask::kPast: return "past";
  }
  return "?";
}

const char* hard_kind_name(HardKind k) {
  switch (k) {
    case HardKind::kRightmost: return "rightmost";
    case HardKind::kLeftmost: return "leftmost";
    case HardKind::kAverage: return "average";
  }
  return "?";
}

Mask parse_mask(const std::string& name) {
  for (Mask m : {Mask::kNone, Mask::kStrictFuture, Mask::kFuture, Mask::kStrictPast, Mask::kPast}) {
    if (name == mask_name(m)) return m;
  }
  throw std::invalid_argument(
      fmt::format("unknown mask '{}' (known: none, strict-future, future, strict-past, past)", name));
}

HardKind parse_hard_kind(const std::string& name) {
  for (HardKind k : {HardKind::kRightmost, HardKind::kLeftmost, HardKind::kAverage}) {
    if (name == hard_kind_name(k)) return k;
  }
  throw std::invalid_argument(fmt::format("unknown hard attention '{}' (known: rightmost, leftmost, average)", name));
}

}  // namespace softhat::model
