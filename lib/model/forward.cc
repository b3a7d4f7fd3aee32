#include "model/forward.h"

#include "util/error.h"
#include "util/interrupt.h"

#include <fmt/format.h>
#include <malloc.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <map>
#include <stdexcept>
#include <type_traits>

#include "model/attention.h"
#include "model/buffers.h"
#include "model/linear.h"
#include "util/symbols.h"

namespace softhat::model {

void MarginStats::add_row(double target_mass, double gap, double beta) {
  ++rows;
  min_target_mass = std::min(min_target_mass, target_mass);
  if (gap < kNoGap) {  // no gap when every visible score ties (the second best is -inf)
    min_gap = std::min(min_gap, gap);
    min_scaled_gap = std::min(min_scaled_gap, beta * gap);
  }
}

void MarginStats::merge(const MarginStats& o) {
  min_target_mass = std::min(min_target_mass, o.min_target_mass);
  min_gap = std::min(min_gap, o.min_gap);
  min_scaled_gap = std::min(min_scaled_gap, o.min_scaled_gap);
  rows += o.rows;
}

bool key_visible(Mask mask, std::int64_t i, std::int64_t j) {
  if (j == 0) return true;  // BOS is visible under every mask
  switch (mask) {
    case Mask::kNone: return true;
    case Mask::kStrictFuture: return j < i;
    case Mask::kFuture: return j <= i;
    case Mask::kStrictPast: return j > i;
    case Mask::kPast: return j >= i;
  }
  return false;
}

std::string read_transduction(const TransducerReadout& tr, const Matrix& X, double* min_margin) {
  const std::int64_t n_pos = X.rows();
  std::string out;
  out.reserve(static_cast<std::size_t>(std::max<std::int64_t>(0, n_pos - 1)));
  double margin = kNoGap;
  for (std::int64_t i = 1; i < n_pos; ++i) {
    std::size_t best = 0;
    for (std::size_t c = 1; c < tr.coordinates.size(); ++c) {
      if (X(i, tr.coordinates[c]) > X(i, tr.coordinates[best])) best = c;
    }
    const double v = X(i, tr.coordinates[best]);
    if (v < tr.threshold) out += tr.default_symbol;
    else if (tr.strings.empty()) out += tr.symbols[best];
    else out += tr.strings[best];
    margin = std::min(margin, std::abs(v - tr.threshold));
  }
  if (min_margin) *min_margin = margin;
  return out;
}

namespace {

// The buffers change size with every word length. Above glibc's mmap
// threshold (128 KiB by default, e.g. one 50 x 2,107 matrix) a freed buffer
// goes back to the kernel and the next one is faulted in again page by page:
// measured 40% of the time on MLRegTest's 64.64.SP.6.1.7 (2,107 residual
// coordinates, words of 20-50). Raising the threshold to glibc's largest
// (32 MiB on 64-bit; mallopt refuses more) and the trim threshold with it,
// once per process when the first engine is built, keeps freed buffers in the
// heap for the next word. Long words' buffers are still given back
// (Runner::run_padded releases them; above 32 MiB they are mmapped anyway).
void keep_freed_buffers() {
  static const bool once = [] {
    const bool mmap_set = mallopt(M_MMAP_THRESHOLD, 32 << 20) == 1;
    // The trim threshold only once the mmap one is set: alone, setting it
    // would freeze glibc's dynamic mmap threshold at its 128 KiB default.
    return mmap_set && mallopt(M_TRIM_THRESHOLD, 64 << 20) == 1;
  }();
  (void)once;
}

inline constexpr std::int64_t kHeadBufferRows = 1024;
inline constexpr Eigen::Index kHeadBufferWidths = 16;

// One runner's buffers in one precision: repeated words of one length
// allocate nothing. Every buffer is sized with resize_buffer (directly or
// through Linear::apply) before an expression writes into it, so a failed
// allocation leaves it empty and valid.
template <typename T>
struct Buffers {
  using MatT = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  std::vector<int> tokens;
  std::vector<double> buf;
  std::vector<T> hidden;  // two positions' FFN form sums (fused path)
  std::vector<std::size_t> active;  // a row's nonzero FFN inputs (fused path)
  MatT phi, X, delta, H, V_t, out_t;
  // The fast path's sums of pos_proj's nonzeros times the position features
  // (one column per output of pos_proj): of this word, and of a word of
  // n < kPhiCached symbols kept for the next word of that length (they
  // depend on n alone).
  MatT pos_sums;
  std::vector<MatT> pos_sums_of_length;
  MatD cast_copy, Q, K, V, out;
  MatD q_row;  // a head's only query, when its queries are constant (1 x d_key)
  // A head's Q, K, V and output of a width under kHeadBufferWidths on a word
  // of fewer than kHeadBufferRows positions: one buffer per width. The heads
  // of a layer differ in width (d_value 1 and 3, say), and one shared buffer
  // was reallocated at every head. Other heads and words share the four above
  // (the memory estimate counts one head; these add at most 4 MiB).
  std::vector<MatD> Q_of_width, K_of_width, V_of_width, out_of_width;
  MatD& head_buffer(std::vector<MatD>& of_width, MatD& shared, std::int64_t n_pos, Eigen::Index width) {
    if (n_pos >= kHeadBufferRows || width >= kHeadBufferWidths) return shared;
    if (of_width.size() <= static_cast<std::size_t>(width)) of_width.resize(static_cast<std::size_t>(width) + 1);
    return of_width[static_cast<std::size_t>(width)];
  }
  AttentionScratch scratch;
};

// The token ids of BOS and the word's symbols; a symbol outside the
// alphabet is an error naming it and its (1-based) position.
// token_of: Transformer::token of every byte, looked up once per model.
void read_tokens(const std::array<int, 256>& token_of, std::string_view word, std::vector<int>& tokens) {
  const std::int64_t n = static_cast<std::int64_t>(word.size());
  tokens.assign(static_cast<std::size_t>(n + 1), 0);
  for (std::int64_t i = 0; i < n; ++i) {
    const int tok = token_of[static_cast<unsigned char>(word[i])];
    if (tok < 0) {
      throw std::invalid_argument(fmt::format("symbol {} at {} is not in the model's alphabet",
                                              (word[i] > ' ' && word[i] < 0x7f) ||
                                                      (static_cast<unsigned char>(word[i]) >= 0x80 &&
                                                       sym::code_point(word[i]) != 0xFFFD)
                                                  ? fmt::format("'{}'", sym::encode(word[i]))
                                                  : fmt::format("0x{:02x}", static_cast<unsigned char>(word[i])),
                                              i + 1));
    }
    tokens[i + 1] = tok;
  }
}

// A layer's FFN when fc1 and fc2 are both sparse, run one position at a
// time: each hidden unit from its nonzeros of fc1 (CSR by distinct row), and only
// the units ReLU leaves positive scattered through their column of fc2 (CSC
// by unit). A row whose inputs are mostly 0 may sum the forms through its
// nonzero inputs instead (CSC by input column), with the same values. No
// (n+1) x hidden matrix is zeroed or written. Every residual
// value receives the same additions in the same order as Linear's sparse
// products (for one output, units in increasing order), so the values are
// those of the unfused sparse path; a unit at exactly 0 adds nothing instead
// of +0. Written by hand: Eigen has no fused sparse-ReLU-sparse product.
template <typename T>
struct FusedFfn {
  // fc1's distinct rows (forms): compiled FFNs round with pairs of units
  // that read the same inputs with the same weights and differ in their bias
  // (rho(t) = ReLU(2t - 1/2) - ReLU(2t - 3/2)), so each form is summed once
  // per position and its units add their biases: the same sum, in the same
  // order, as each unit's own.
  std::vector<std::size_t> form_start;  // fc1 nonzeros of form f: [form_start[f], form_start[f + 1])
  std::vector<Eigen::Index> in;
  std::vector<T> w_in;
  // The same nonzeros by input column, for rows whose inputs are mostly 0
  // (compiled streams are Boolean, and a wide model's FFN reads a row's
  // nonzero coordinates through 9-20% of its weights): in_cols are the
  // columns some form reads, increasing; column j's forms and weights are
  // [in_start[j], in_start[j + 1]).
  std::vector<Eigen::Index> in_cols;
  std::vector<std::size_t> in_start, in_form;
  std::vector<T> in_w;
  bool by_input = false;  // rows may take the columns' path (forms_by_input)
  std::vector<std::size_t> unit_form;  // the form of unit u
  std::vector<std::size_t> col_start;  // fc2 nonzeros of unit u: [col_start[u], col_start[u + 1])
  std::vector<Eigen::Index> out;
  std::vector<T> w_out;
  Eigen::Matrix<T, 1, Eigen::Dynamic, Eigen::RowMajor> b1;

  FusedFfn() = default;
  FusedFfn(const Linear<T>& fc1, const Linear<T>& fc2, const Eigen::Matrix<T, 1, Eigen::Dynamic, Eigen::RowMajor>& bias)
      : b1(bias) {
    const std::size_t hidden = static_cast<std::size_t>(fc1.rows());
    std::vector<std::vector<std::pair<Eigen::Index, T>>> rows(hidden);
    for (const auto& e : fc1.entries) rows[static_cast<std::size_t>(e.out)].emplace_back(e.in, e.w);  // inputs increasing
    std::map<std::vector<std::pair<Eigen::Index, T>>, std::size_t> form_of;
    form_start.push_back(0);
    for (std::size_t u = 0; u < hidden; ++u) {
      const auto [it, added] = form_of.emplace(rows[u], form_of.size());
      if (added) {
        for (const auto& [c, w] : rows[u]) {
          in.push_back(c);
          w_in.push_back(w);
        }
        form_start.push_back(in.size());
      }
      unit_form.push_back(it->second);
    }
    std::vector<std::size_t> per_col(static_cast<std::size_t>(fc1.dense.cols()) + 1, 0);
    for (const Eigen::Index c : in) ++per_col[static_cast<std::size_t>(c) + 1];
    in_start.push_back(0);
    for (std::size_t c = 0; c + 1 < per_col.size(); ++c) {
      if (per_col[c + 1] == 0) continue;
      in_cols.push_back(static_cast<Eigen::Index>(c));
      in_start.push_back(in_start.back() + per_col[c + 1]);
    }
    {
      std::vector<std::size_t> at(per_col.size(), 0);  // column c's next slot
      for (std::size_t j = 0; j < in_cols.size(); ++j) at[static_cast<std::size_t>(in_cols[j])] = in_start[j];
      in_form.resize(in.size());
      in_w.resize(in.size());
      for (std::size_t f = 0; f + 1 < form_start.size(); ++f) {
        for (std::size_t k = form_start[f]; k < form_start[f + 1]; ++k) {
          const std::size_t slot = at[static_cast<std::size_t>(in[k])]++;
          in_form[slot] = f;
          in_w[slot] = w_in[k];
        }
      }
    }
    // Skipping a zero input drops a term w * 0, which is +-0 only when w is
    // finite (a weight cast to float may not be). The path pays a pass over
    // in_cols per row, a test per column, which costs about what the
    // two-row gather pays for several nonzeros: only layers with at least 64
    // nonzeros and 8 per column read take it. With 4 per column, the
    // MLRegTest models 16.04.TLTT.6.2.6, 16.16.LTT.4.2.4 and 64.64.SF.0.0.3
    // ran 9-11% slower than by form alone; with 8 they run as before and
    // 16.16.SF.0.0.9 (408 forms on 50 columns) 1.38x faster.
    by_input = in.size() >= 64 && in_cols.size() * 8 <= in.size() &&
               std::all_of(w_in.begin(), w_in.end(), [](T w) { return std::isfinite(w); });
    col_start.assign(hidden + 1, 0);
    for (const auto& e : fc2.entries) ++col_start[static_cast<std::size_t>(e.in) + 1];
    for (std::size_t u = 0; u < hidden; ++u) col_start[u + 1] += col_start[u];
    out.resize(fc2.entries.size());
    w_out.resize(fc2.entries.size());
    std::vector<std::size_t> fill(col_start.begin(), col_start.end() - 1);
    for (const auto& e : fc2.entries) {  // row-major: per unit, outputs come out increasing
      const std::size_t at = fill[static_cast<std::size_t>(e.in)]++;
      out[at] = e.out;
      w_out[at] = e.w;
    }
  }

  // The forms' sums on row x into fv by input column, if x's nonzero inputs
  // reach few enough of the forms' nonzeros (twice them plus the forms at
  // most all nonzeros); else false (fv untouched).
  // active: scratch. Each form's sum gets its nonzero terms in the same
  // order as the gather in apply (inputs increasing) and skips only terms
  // w * 0 with w finite, which are +-0: a sum that starts from +0 is never
  // -0 (x + y is -0 only when both are), and adding +-0 to a value that is
  // not -0 leaves it unchanged. So every sum is bit for bit the gather's.
  bool forms_by_input(const T* x, T* fv, std::vector<std::size_t>& active) const {
    const std::size_t cols = in_cols.size();
    if (active.size() < cols) active.resize(cols);
    std::size_t* act = active.data();
    const std::size_t* start = in_start.data();
    const Eigen::Index* col = in_cols.data();
    std::size_t n = 0, reached = 0;
    for (std::size_t j = 0; j < cols; ++j) {  // no branch per column: a row's zeros follow no pattern
      const std::size_t on = x[col[j]] != T(0);
      act[n] = j;
      n += on;
      reached += (start[j + 1] - start[j]) & (0 - on);
    }
    const std::size_t forms = form_start.size() - 1;
    if (2 * reached + forms > in.size()) return false;
    std::fill(fv, fv + forms, T(0));
    const std::size_t* form = in_form.data();
    const T* w = in_w.data();
    for (std::size_t a = 0; a < n; ++a) {
      const std::size_t j = act[a];
      const T xj = x[col[j]];
      for (std::size_t k = start[j]; k < start[j + 1]; ++k) fv[form[k]] += w[k] * xj;
    }
    return true;
  }

  // The forms' sums on row x into fv, by form (CSR).
  void forms_by_form(const T* x, T* fv) const {
    const std::size_t* start = form_start.data();
    const Eigen::Index* from = in.data();
    const T* win = w_in.data();
    for (std::size_t f = 0; f + 1 < form_start.size(); ++f) {
      T acc = T(0);
      for (std::size_t k = start[f]; k < start[f + 1]; ++k) acc += win[k] * x[from[k]];
      fv[f] = acc;
    }
  }

  // X += fc2 ReLU(fc1 X + b1), row by row, then finish(row) on each row
  // while it is at hand; false if a unit is NaN or finish returns false (X
  // is then left part-way: the caller throws).
  // h: scratch (the forms' sums, for two rows). A unit's value is its form's
  // sum plus its bias, computed where it is scattered.
  // Rows go two at a time: a form's sum and an output's additions are chains
  // of dependent additions, and the other row's chain runs beside each. Each
  // row gets the same additions in the same order as alone.
  // active: scratch for forms_by_input.
  template <typename MatT, typename Finish>
  bool apply(MatT& X, std::vector<T>& h, std::vector<std::size_t>& active, Finish&& finish) const {
    // Two instances, so that a layer without the columns' path runs the
    // gather alone, with no test per row (ab-star ran 7% slower with one).
    return by_input ? apply_rows<true>(X, h, active, finish) : apply_rows<false>(X, h, active, finish);
  }

  template <bool kByInput, typename MatT, typename Finish>
  bool apply_rows(MatT& X, std::vector<T>& h, std::vector<std::size_t>& active, Finish& finish) const {
    const std::size_t hidden = unit_form.size();
    const std::size_t forms = form_start.size() - 1;
    h.resize(2 * forms);
    T* fv0 = h.data();
    T* fv1 = fv0 + forms;
    const T* bias = b1.data();
    const std::size_t* start = form_start.data();
    const std::size_t* form = unit_form.data();
    const std::size_t* col = col_start.data();
    const Eigen::Index* from = in.data();
    const Eigen::Index* to = out.data();
    const T* win = w_in.data();
    const T* wout = w_out.data();
    Eigen::Index i = 0;
    for (; i + 1 < X.rows(); i += 2) {
      T* x0 = X.row(i).data();
      T* x1 = X.row(i + 1).data();
      const bool sparse0 = kByInput && forms_by_input(x0, fv0, active);
      const bool sparse1 = kByInput && forms_by_input(x1, fv1, active);
      if (sparse0 && !sparse1) {
        forms_by_form(x1, fv1);
      } else if (sparse1 && !sparse0) {
        forms_by_form(x0, fv0);
      } else if (!sparse0) {
        for (std::size_t f = 0; f < forms; ++f) {
          T acc0 = T(0), acc1 = T(0);
          for (std::size_t k = start[f]; k < start[f + 1]; ++k) {
            acc0 += win[k] * x0[from[k]];
            acc1 += win[k] * x1[from[k]];
          }
          fv0[f] = acc0;
          fv1[f] = acc1;
        }
      }
      bool nan = false;  // | rather than ||: no branch per unit
      for (std::size_t u = 0; u < hidden; ++u) {
        const T v0 = fv0[form[u]] + bias[u], v1 = fv1[form[u]] + bias[u];
        nan |= std::isnan(v0) | std::isnan(v1);
        const bool on0 = v0 > T(0), on1 = v1 > T(0);
        if (on0 && on1) {
          for (std::size_t k = col[u]; k < col[u + 1]; ++k) {
            x0[to[k]] += wout[k] * v0;
            x1[to[k]] += wout[k] * v1;
          }
        } else if (on0) {
          for (std::size_t k = col[u]; k < col[u + 1]; ++k) x0[to[k]] += wout[k] * v0;
        } else if (on1) {
          for (std::size_t k = col[u]; k < col[u + 1]; ++k) x1[to[k]] += wout[k] * v1;
        }
      }
      if (nan || !finish(x0) || !finish(x1)) return false;
    }
    if (i < X.rows()) {
      T* x = X.row(i).data();
      if (!(kByInput && forms_by_input(x, fv0, active))) forms_by_form(x, fv0);
      bool nan = false;
      for (std::size_t u = 0; u < hidden; ++u) {
        const T v = fv0[form[u]] + bias[u];
        nan |= std::isnan(v);
        if (!(v > T(0))) continue;
        for (std::size_t k = col[u]; k < col[u + 1]; ++k) x[to[k]] += wout[k] * v;
      }
      if (nan || !finish(x)) return false;
    }
    return true;
  }
};

// A sparse Linear's nonzeros grouped by output (they are row-major, so each
// output's are consecutive): output out[g] sums entries [start[g], start[g + 1]).
struct ByOutput {
  std::vector<Eigen::Index> out;
  std::vector<std::size_t> start{0};
  template <typename S>
  explicit ByOutput(const Linear<S>& w) {
    for (std::size_t k = 0; k < w.entries.size(); ++k) {
      if (out.empty() || out.back() != w.entries[k].out) {
        if (!out.empty()) start.push_back(k);
        out.push_back(w.entries[k].out);
      }
    }
    if (!out.empty()) start.push_back(w.entries.size());
  }
  ByOutput() = default;
};

// The residual columns that hold one value at every position of a word as
// the first layer reads them (1: constant): the embedding's rows agree on the
// column and are finite there, and the only position features feeding it are
// the same at every position (one, n), through the fast path's sparse
// pos_proj (pos_sparse: each row then sums the same terms in the same order).
// Each row's value is then the same number (a zero may differ in sign, which
// no product or comparison downstream tells apart). Prepared clears the
// columns each layer may write.
std::vector<char> constant_columns(const Transformer& t, bool pos_sparse) {
  using K = PositionFeature::Kind;
  std::vector<char> same_feature;  // per pos_proj column: the feature is the same at every position
  for (const PositionFeature& f : t.config.position_features) {
    same_feature.insert(same_feature.end(), static_cast<std::size_t>(f.width()),
                        pos_sparse && (f.kind == K::kOne || f.kind == K::kLength));
  }
  const Eigen::Index d = t.embed.cols();
  std::vector<char> constant(static_cast<std::size_t>(d), 0);
  for (Eigen::Index c = 0; c < d; ++c) {
    const double v = t.embed.rows() > 0 ? t.embed(0, c) : 0.0;
    bool same = std::isfinite(v);
    for (Eigen::Index r = 1; r < t.embed.rows() && same; ++r) same = t.embed(r, c) == v;
    for (Eigen::Index k = 0; k < t.pos_proj.cols() && same; ++k) {
      same = t.pos_proj(c, k) == 0.0 || (static_cast<std::size_t>(k) < same_feature.size() && same_feature[k]);
    }
    constant[static_cast<std::size_t>(c)] = same ? 1 : 0;
  }
  return constant;
}

template <typename T>
struct Prepared {
  using MatT = typename Buffers<T>::MatT;
  using VecT = Eigen::Matrix<T, 1, Eigen::Dynamic, Eigen::RowMajor>;
  struct Head {
    Linear<double> q, k;  // scores are accumulated in double
    Linear<T> v, o;
    // The query weights are sparse and read only constant columns (see
    // constant_columns): every position's query is the same row, so the
    // scans compute one (BOS's) and classify none.
    bool q_constant = false;
  };
  struct Layer {
    std::vector<Head> heads;
    Linear<T> fc1, fc2;
    VecT b1, b2;
    std::optional<FusedFfn<T>> fused;  // fc1 and fc2 both sparse
    // Compiled models write a few residual columns per layer. When every
    // output matrix is sparse, the layer only touches the columns some head,
    // FFN row or bias writes (`touched`, sorted); the others receive exactly
    // +0 in the dense reference, so skipping them changes no value.
    bool narrow = false;
    std::vector<Eigen::Index> head_cols, touched;
    // A narrow layer of one head whose output matrix has one nonzero per
    // column it writes: its output is added to X directly, X += w * out,
    // with no delta. The same value: delta would hold 0 + w * out, which is
    // w * out unless that is -0, and x + 0 and x + (-0) are both x unless x
    // is -0. Only where the fast path's stream holds no -0 (see bias_cols
    // and Prepared::no_negative_zero).
    bool direct = false;
    // Head h's query weights are bit for bit head h-1's (compiled layers'
    // heads often share one query): its Q and query classes are reused.
    std::vector<char> q_as_previous;
    // b2's nonzeros (narrow layers): only these are added. Adding +0 changes
    // only a -0, and the fast path's stream holds none: it starts as
    // 0 + embedding plus sums that start from +0, and only ever has values
    // added to it, and x + y is -0 only when both are. (A dense pos_proj's
    // GEMM could start a -0, which stays -0 here and equals 0.)
    std::vector<Eigen::Index> bias_cols;
    // Float runs cast the stream to double for the scores once per layer.
    // When every head's query and key weights are sparse, their products
    // read these columns alone (sorted), and only these are cast: on
    // 16.04.TLTT.6.2.6 (width 377) the whole-stream cast took 58% of a
    // float run, which ran 2.5x slower than double.
    bool scores_sparse = false;
    std::vector<Eigen::Index> score_cols;

    // A narrow layer's end on one row: its bias, and whether every column it
    // touched is finite.
    bool finish_row(T* x) const {
      const T* b = b2.data();
      for (Eigen::Index c : bias_cols) x[c] += b[c];
      // x - x is 0 for a finite x and NaN otherwise: sums, no branch per
      // column. Two sums, so that their additions do not wait on one another.
      T z0 = T(0), z1 = T(0);
      const Eigen::Index* c = touched.data();
      const std::size_t n = touched.size();
      std::size_t k = 0;
      for (; k + 1 < n; k += 2) {
        z0 += x[c[k]] - x[c[k]];
        z1 += x[c[k + 1]] - x[c[k + 1]];
      }
      if (k < n) z0 += x[c[k]] - x[c[k]];
      return z0 + z1 == T(0);
    }
  };
  std::array<int, 256> token_of{};
  MatT embed;
  MatT embed0;  // 0 + embed (-0 becomes +0): the fast paths copy its rows
  bool embed_finite = true;
  Linear<T> pos_proj;
  ByOutput pos_by_output;  // pos_proj's nonzeros by output (sparse pos_proj)
  std::vector<Layer> layers;

  explicit Prepared(const Transformer& t) {
    for (int b = 0; b < 256; ++b) token_of[static_cast<std::size_t>(b)] = t.token(static_cast<char>(b));
    embed = t.embed.cast<T>();
    embed_finite = embed.allFinite();
    embed0 = (T(0) + embed.array()).matrix();
    pos_proj = Linear<T>(t.pos_proj.cast<T>());
    pos_by_output = ByOutput(pos_proj);
    std::vector<char> constant = constant_columns(t, pos_proj.use_sparse && embed_finite);
    // The fast path's stream starts with no -0 when its rows are 0 + the
    // embedding plus sums that start from +0 (embed_word's first two paths),
    // and x + y is -0 only when both are: it then never holds one. A dense
    // pos_proj's GEMM plus a table with a -0 could start one.
    const bool no_negative_zero = t.config.position_width() == 0 || (pos_proj.use_sparse && embed_finite);
    for (const LayerWeights& lw : t.layers) {
      Layer layer;
      for (const HeadWeights& hw : lw.heads) {
        layer.heads.push_back({Linear<double>(hw.q), Linear<double>(hw.k), Linear<T>(hw.v.cast<T>()),
                               Linear<T>(hw.o.cast<T>())});
        const std::size_t h = layer.heads.size() - 1;
        Head& head = layer.heads.back();
        head.q_constant = head.q.use_sparse && std::all_of(head.q.entries.begin(), head.q.entries.end(),
                                                           [&](const auto& e) { return constant[e.in] != 0; });
        const Matrix& q = lw.heads[h].q;
        layer.q_as_previous.push_back(
            h > 0 && lw.heads[h - 1].q.rows() == q.rows() && lw.heads[h - 1].q.cols() == q.cols() &&
            (q.size() == 0 ||  // an empty matrix's data() may be null, which memcmp must not get
             std::memcmp(lw.heads[h - 1].q.data(), q.data(), sizeof(double) * static_cast<std::size_t>(q.size())) == 0));
      }
      layer.scores_sparse = std::all_of(layer.heads.begin(), layer.heads.end(),
                                        [](const Head& h) { return h.q.use_sparse && h.k.use_sparse; });
      {
        std::vector<char> read(static_cast<std::size_t>(t.config.d_model), 0);
        for (const Head& h : layer.heads) {
          for (const auto& e : h.q.entries) read[static_cast<std::size_t>(e.in)] = 1;
          for (const auto& e : h.k.entries) read[static_cast<std::size_t>(e.in)] = 1;
        }
        for (std::size_t c = 0; c < read.size(); ++c) {
          if (read[c]) layer.score_cols.push_back(static_cast<Eigen::Index>(c));
        }
      }
      layer.fc1 = Linear<T>(lw.fc1.cast<T>());
      layer.fc2 = Linear<T>(lw.fc2.cast<T>());
      layer.b1 = lw.b1.cast<T>();
      layer.b2 = lw.b2.cast<T>();
      if (layer.fc1.rows() > 0 && layer.fc1.use_sparse && layer.fc2.use_sparse) {
        layer.fused.emplace(layer.fc1, layer.fc2, layer.b1);
      }
      layer.narrow = layer.fc1.rows() == 0 || layer.fc2.use_sparse;
      std::vector<char> head_col(static_cast<std::size_t>(t.config.d_model), 0), any(head_col);
      for (const Head& h : layer.heads) {
        layer.narrow = layer.narrow && h.o.use_sparse;
        for (const auto& e : h.o.entries) head_col[e.out] = any[e.out] = 1;
      }
      if (layer.fc1.rows() > 0) {
        for (const auto& e : layer.fc2.entries) any[e.out] = 1;
      }
      for (Eigen::Index c = 0; c < layer.b2.size(); ++c) {
        if (layer.b2(c) != T(0)) any[c] = 1;
      }
      if (no_negative_zero && layer.narrow && layer.heads.size() == 1) {
        std::vector<int> writes(head_col.size(), 0);
        for (const auto& e : layer.heads[0].o.entries) ++writes[static_cast<std::size_t>(e.out)];
        layer.direct = std::all_of(writes.begin(), writes.end(), [](int w) { return w <= 1; });
      }
      for (std::size_t c = 0; c < head_col.size(); ++c) {
        if (head_col[c]) layer.head_cols.push_back(static_cast<Eigen::Index>(c));
        if (any[c]) layer.touched.push_back(static_cast<Eigen::Index>(c));
        if (layer.b2(static_cast<Eigen::Index>(c)) != T(0)) layer.bias_cols.push_back(static_cast<Eigen::Index>(c));
      }
      // The fast path writes a narrow layer's touched columns alone; any
      // other layer may write every column.
      if (layer.narrow) {
        for (Eigen::Index c : layer.touched) constant[static_cast<std::size_t>(c)] = 0;
      } else {
        std::fill(constant.begin(), constant.end(), 0);
      }
      layers.push_back(std::move(layer));
    }
  }

  RunResult run(const Transformer& t, std::string_view word, const RunOptions& opt, Buffers<T>& ws) const {
    const ModelConfig& cfg = t.config;
    const std::int64_t n = static_cast<std::int64_t>(word.size());
    read_tokens(token_of, word, ws.tokens);
    embed_word(cfg, n, opt.reference, ws);

    RunResult result;
    result.beta = (opt.beta ? *opt.beta : cfg.beta).at(n);
    if (opt.trace && opt.mode == AttentionMode::kSoftmax) result.margins = MarginStats{};
    for (std::size_t li = 0; li < layers.size(); ++li) {
      throw_if_interrupted();  // one long word can take seconds per layer
      if (opt.keep_layer_inputs) result.layer_inputs.push_back(ws.X.template cast<double>());
      attention_sublayer(cfg, li, opt, ws, result);
      ffn_sublayer(li, opt.reference, ws);
    }
    read_out(cfg, n, opt, ws.X, result);
    return result;
  }

 private:
  // Words shorter than this keep their position sums (pos_proj's outputs)
  // for the next word of their length (at most kPhiCached^2 / 2 rows per runner).
  static constexpr std::int64_t kPhiCached = 256;

  // The position features of a word of n symbols, one row per position.
  static void position_rows(const ModelConfig& cfg, std::int64_t n, int width, Buffers<T>& ws, MatT& phi) {
    const std::int64_t n_pos = n + 1;
    resize_buffer(phi, n_pos, width);
    ws.buf.resize(static_cast<std::size_t>(width));
    for (std::int64_t j = 0; j < n_pos; ++j) {
      int off = 0;
      for (const PositionFeature& f : cfg.position_features) {
        f.evaluate(j, n, ws.buf.data() + off);
        off += f.width();
      }
      for (int c = 0; c < width; ++c) phi(j, c) = static_cast<T>(ws.buf[c]);
    }
  }

  // X = token rows plus projected position features.
  void embed_word(const ModelConfig& cfg, std::int64_t n, bool reference, Buffers<T>& ws) const {
    const std::int64_t n_pos = n + 1;
    const int width = cfg.position_width();
    MatT& X = ws.X;
    if (width > 0 && !reference && pos_proj.use_sparse && embed_finite) {
      // Each row is its token's plus, on pos_proj's outputs, the sums of
      // pos_proj's nonzeros times the position features: the additions of
      // pos_proj.apply and the row sum below, in their order. The sums depend
      // on n and the position alone, so a word shorter than kPhiCached takes
      // them from the runner's cache of its length. The other columns are
      // 0 + a finite embedding, so only pos_proj's outputs need the
      // finiteness check.
      const ByOutput& by = pos_by_output;
      const Eigen::Index outputs = static_cast<Eigen::Index>(by.out.size());
      MatT* sums = &ws.pos_sums;
      if (n < kPhiCached) {
        if (ws.pos_sums_of_length.size() <= static_cast<std::size_t>(n)) {
          ws.pos_sums_of_length.resize(static_cast<std::size_t>(n) + 1);
        }
        sums = &ws.pos_sums_of_length[static_cast<std::size_t>(n)];
      }
      if (n >= kPhiCached || sums->rows() != n_pos) {
        position_rows(cfg, n, width, ws, ws.phi);
        // Only the resizes can throw (a failed allocation leaves the buffer
        // empty), so a cache entry of n_pos rows is always filled whole.
        MatT& fresh = *sums;
        resize_buffer(fresh, n_pos, outputs);
        const auto* entry = pos_proj.entries.data();
        for (std::int64_t j = 0; j < n_pos; ++j) {
          const T* p = ws.phi.row(j).data();
          for (Eigen::Index g = 0; g < outputs; ++g) {
            T acc = T(0);
            for (std::size_t k = by.start[g]; k < by.start[g + 1]; ++k) acc += entry[k].w * p[entry[k].in];
            fresh(j, g) = acc;
          }
        }
      }
      resize_buffer(X, n_pos, embed.cols());
      const Eigen::Index d = embed.cols();
      const Eigen::Index* out_col = by.out.data();
      bool finite = true;
      for (std::int64_t j = 0; j < n_pos; ++j) {
        const T* e = embed0.row(ws.tokens[j]).data();
        const T* acc = sums->row(j).data();
        T* x = X.row(j).data();
        std::copy(e, e + d, x);
        for (Eigen::Index g = 0; g < outputs; ++g) {
          const Eigen::Index o = out_col[g];
          x[o] = acc[g] + e[o];
          finite = finite && std::isfinite(x[o]);
        }
      }
      if (!finite) throw NumericError("the embedding overflows (a value is infinite or NaN)");
      return;
    }
    MatT& phi = ws.phi;
    position_rows(cfg, n, width, ws, phi);
    if (width == 0 && !reference) {
      // No position features: each row is its token's, as 0 + embed (the
      // empty product's zeros plus the row, -0 included), with no GEMM call,
      // and finite when the table is.
      resize_buffer(X, n_pos, embed.cols());
      const Eigen::Index d = embed.cols();
      for (std::int64_t j = 0; j < n_pos; ++j) {
        const T* e = embed0.row(ws.tokens[j]).data();
        std::copy(e, e + d, X.row(j).data());
      }
      if (!embed_finite && !X.allFinite()) throw NumericError("the embedding overflows (a value is infinite or NaN)");
      return;
    }
    pos_proj.apply(phi, X, reference);
    for (std::int64_t j = 0; j < n_pos; ++j) X.row(j) += embed.row(ws.tokens[j]);
    if (!X.allFinite()) throw NumericError("the embedding overflows (a value is infinite or NaN)");
  }

  // X += sum over the layer's heads of attention_h(X) o_proj_h^T (margins
  // into result when tracing).
  void attention_sublayer(const ModelConfig& cfg, std::size_t li, const RunOptions& opt, Buffers<T>& ws,
                          RunResult& result) const {
    const Layer& layer = layers[li];
    const bool reference = opt.reference;
    const bool narrow = layer.narrow && !reference;
    MatT& X = ws.X;
    MatT& delta = ws.delta;
    const std::int64_t n_pos = X.rows();
    // A direct layer adds its head's output to X itself (Layer::direct);
    // any other narrow layer reads back only its heads' columns of delta
    // (zeroed here); other columns may hold an earlier layer's values.
    const bool direct = narrow && layer.direct;
    if (direct) {
      // no delta
    } else if (narrow && delta.rows() == n_pos && delta.cols() == cfg.d_model) {
      for (Eigen::Index c : layer.head_cols) delta.col(c).setZero();
    } else {
      resize_buffer(delta, n_pos, cfg.d_model);
      delta.setZero();
    }
    // Scores accumulate in double: in float runs the stream is cast once per layer.
    if constexpr (!std::is_same_v<T, double>) {
      resize_buffer(ws.cast_copy, X.rows(), X.cols());
      if (layer.scores_sparse && !reference) {
        // The other columns keep what an earlier layer or word left there:
        // the sparse products never read them.
        for (std::int64_t i = 0; i < n_pos; ++i) {
          const T* x = X.row(i).data();
          double* y = ws.cast_copy.row(i).data();
          for (const Eigen::Index c : layer.score_cols) y[c] = static_cast<double>(x[c]);
        }
      } else {
        ws.cast_copy = X.template cast<double>();
      }
    }
    const MatD& Xd = [&]() -> const MatD& {
      if constexpr (std::is_same_v<T, double>) return X;
      else return ws.cast_copy;
    }();
    for (std::size_t hi = 0; hi < layer.heads.size(); ++hi) {
      const Head& h = layer.heads[hi];
      const bool constant_queries = h.q_constant && opt.linear_scan && !reference;
      MatD& Q = constant_queries ? ws.q_row : ws.head_buffer(ws.Q_of_width, ws.Q, n_pos, h.q.rows());
      MatD& K = ws.head_buffer(ws.K_of_width, ws.K, n_pos, h.k.rows());
      MatD& V = ws.head_buffer(ws.V_of_width, ws.V, n_pos, h.v.rows());
      MatD& out = ws.head_buffer(ws.out_of_width, ws.out, n_pos, h.v.rows());
      // Q still holds the previous head's queries: the same weights have the
      // same width, and nothing else writes it.
      const bool same_queries = layer.q_as_previous[hi] && !reference;
      if (constant_queries && !same_queries) {
        h.q.apply(Xd.topRows(1), Q);
      } else if (!same_queries) {
        h.q.apply(Xd, Q, reference);
      }
      h.k.apply(Xd, K, reference);
      if constexpr (std::is_same_v<T, double>) {
        h.v.apply(X, V, reference);
      } else {
        h.v.apply(X, ws.V_t, reference);
        resize_buffer(V, ws.V_t.rows(), ws.V_t.cols());
        V = ws.V_t.template cast<double>();
      }
      HeadMargins hm{static_cast<int>(li), static_cast<int>(hi), {}};
      const HeadConfig* head_config = &cfg.layers[li].heads[hi];
      HeadConfig averaged;  // copied (label and all) only when forced to average
      if (opt.force_average) {
        averaged = *head_config;
        averaged.hard = HardKind::kAverage;
        head_config = &averaged;
      }
      const HeadJob job{Q,
                        K,
                        V,
                        *head_config,
                        opt.mode,
                        result.beta,
                        static_cast<int>(li),
                        static_cast<int>(hi),
                        std::max(1, opt.query_block),
                        std::max(1, opt.key_block),
                        opt.linear_scan && !reference,
                        result.margins ? &hm.stats : nullptr,
                        same_queries,
                        constant_queries};
      attend(job, ws.scratch, out);
      MatT& sum = direct ? X : delta;  // the head's only reader of X has run: K, V and Q are made
      if constexpr (std::is_same_v<T, double>) {
        h.o.add(out, sum, reference);
      } else {
        resize_buffer(ws.out_t, out.rows(), out.cols());
        ws.out_t = out.template cast<T>();
        h.o.add(ws.out_t, sum, reference);
      }
      if (result.margins) {
        result.margins->merge(hm.stats);
        result.head_margins.push_back(hm);
      }
    }
    if (direct) {
      // added above
    } else if (narrow) {
      for (Eigen::Index c : layer.head_cols) X.col(c) += delta.col(c);
    } else {
      X += delta;
    }
  }

  // X += fc2(ReLU(fc1 X + b1)) + b2; an overflow is an error.
  void ffn_sublayer(std::size_t li, bool reference, Buffers<T>& ws) const {
    const Layer& layer = layers[li];
    MatT& X = ws.X;
    bool finite = true;
    const bool narrow = layer.narrow && !reference;
    if (layer.fc1.rows() > 0 && layer.fused && !reference) {
      // A narrow layer's bias and check on each row as the FFN leaves it.
      finite = narrow ? layer.fused->apply(X, ws.hidden, ws.active, [&](T* x) { return layer.finish_row(x); })
                      : layer.fused->apply(X, ws.hidden, ws.active, [](T*) { return true; });
      if (narrow) {
        if (!finite) throw_overflow(li);
        return;
      }
    } else if (layer.fc1.rows() > 0) {
      MatT& H = ws.H;
      layer.fc1.apply(X, H, reference);
      H = (H.rowwise() + layer.b1).cwiseMax(T(0));
      layer.fc2.add(H, X, reference);
    }
    if (finite && narrow) {
      // Row by row (the stream is row-major): the bias and the finiteness
      // check of the touched columns in one pass.
      for (Eigen::Index i = 0; i < X.rows(); ++i) finite = layer.finish_row(X.row(i).data()) && finite;
    } else if (finite) {
      X.rowwise() += layer.b2;
      finite = X.allFinite();
    }
    if (!finite) throw_overflow(li);
  }

  [[noreturn]] static void throw_overflow(std::size_t li) {
    throw NumericError(fmt::format("layer {}: the residual stream overflows (a value is infinite or NaN)", li));
  }

  // The verdict at position n, a transducer's output, and the states kept.
  static void read_out(const ModelConfig& cfg, std::int64_t n, const RunOptions& opt, const MatT& X,
                       RunResult& result) {
    result.y = static_cast<double>(X(n, cfg.readout.coordinate));
    result.accepted = result.y >= cfg.readout.threshold;
    result.output_margin = std::abs(result.y - cfg.readout.threshold);
    if (cfg.transducer) {
      if constexpr (std::is_same_v<T, double>) {
        result.output = read_transduction(*cfg.transducer, X, &result.min_symbol_margin);
      } else {
        result.output = read_transduction(*cfg.transducer, X.template cast<double>(), &result.min_symbol_margin);
      }
    }
    if (opt.keep_state) {
      result.final_state.resize(cfg.d_model);
      for (int c = 0; c < cfg.d_model; ++c) result.final_state[c] = static_cast<double>(X(n, c));
    }
    if (opt.keep_all_states) result.states = X.template cast<double>();
  }
};

}  // namespace

struct Engine::Impl {
  std::optional<Prepared<double>> d;
  std::optional<Prepared<float>> f;
};

Engine::Engine(Transformer model, Precision precision) : model_(std::move(model)), impl_(std::make_unique<Impl>()) {
  keep_freed_buffers();
  if (precision == Precision::kDouble) impl_->d.emplace(model_);
  else impl_->f.emplace(model_);
}
Engine::~Engine() = default;
Engine::Engine(Engine&&) noexcept = default;

RunResult Engine::run(std::string_view word, const RunOptions& options) const {
  return Runner(*this).run(word, options);
}

struct Runner::Workspace {
  Buffers<double> d;
  Buffers<float> f;
  // Gives every buffer back (moves and destructors only: cannot throw).
  void clear() {
    d = Buffers<double>{};
    f = Buffers<float>{};
  }
};

Runner::Runner(const Engine& engine) : engine_(&engine), workspace_(std::make_unique<Workspace>()) {}
Runner::~Runner() = default;
Runner::Runner(Runner&&) noexcept = default;

std::string program_input(const ModelConfig& config, std::string_view word) {
  std::string padded(word);
  if (config.program) {  // the pad symbol is in the model's alphabet but never in a word
    const std::size_t at = word.find(config.program->pad_symbol);
    if (at != std::string_view::npos) {
      throw std::invalid_argument(fmt::format("symbol '{}' at {} is the program's pad symbol, not part of its input alphabet",
                                              sym::encode(config.program->pad_symbol), at + 1));
    }
  }
  if (config.program) padded.append(config.program->padded_length(word.size()) - word.size(), config.program->pad_symbol);
  return padded;
}

void program_output(const ModelConfig& config, const Matrix& states, RunResult& result) {
  if (!config.program) return;
  for (std::int64_t t = 1; t < states.rows(); ++t) {
    for (const ProgramIo::Flag& f : config.program->range_flags) {
      if (states(t, f.coordinate) > 0.5) {
        throw std::invalid_argument(fmt::format("position {}: {} (outside the range the compiled model is exact for)",
                                                t - 1, f.what));
      }
    }
  }
  if (result.output) std::erase(*result.output, config.program->pad_symbol);
}

RunResult Runner::run(std::string_view word, const RunOptions& options) {
  const Transformer& model = engine_->model_;
  if (model.config.program) {  // pad, run, check the range flags, drop the pad symbols
    const std::string padded = program_input(model.config, word);
    RunOptions opt = options;
    opt.keep_all_states = true;
    RunResult result = run_padded(padded, opt);
    program_output(model.config, result.states, result);
    if (!options.keep_all_states) result.states.resize(0, 0);
    return result;
  }
  return run_padded(word, options);
}

RunResult Runner::run_padded(std::string_view word, const RunOptions& options) {
  const Transformer& model = engine_->model_;
  check_memory_limit(model, word.size(), options);
  // Buffers of long words are given back when the word is done, so memory
  // stays proportional to the word being run; after an error too (an engine
  // error, or an allocation that failed), so the next word starts from empty
  // buffers whatever state the failed one reached.
  struct Release {
    Workspace& ws;
    bool big;
    bool done = false;
    ~Release() {
      if (big || !done) ws.clear();
    }
  } release{*workspace_, word.size() + 1 > 4096};
  const Engine::Impl& impl = *engine_->impl_;
  RunResult result = impl.d ? impl.d->run(model, word, options, workspace_->d)
                            : impl.f->run(model, word, options, workspace_->f);
  release.done = true;
  return result;
}

}  // namespace softhat::model
