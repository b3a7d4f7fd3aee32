// A weight matrix applied to row-major activations (internal to lib/model):
// the engine's dense GEMM or, for compiled models' mostly-zero weights, a
// product over the nonzeros.
#pragma once

#include <Eigen/Core>

#include <algorithm>
#include <vector>

#include "model/buffers.h"

namespace softhat::model {

// A weight matrix W (out x in) applied to row-major activations, X W^T.
// Compiled weights are mostly zeros (a head reads one or two 0/1
// coordinates) and their products have a few dozen rows: there a product
// over the nonzeros (n * nnz multiply-adds) beats the dense GEMM, whose
// packing dominates tiny products. Written by hand because Eigen's
// dense x sparse product walks a row-major X column by column and zero-fills
// its result first (measured ~2x slower than this loop at n = 64). Chosen from
// the weights alone; dense models keep the GEMM.
template <typename S>
struct Linear {
  using Mat = Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  struct Entry {
    Eigen::Index out, in;
    S w;
  };
  Mat dense;
  std::vector<Entry> entries;  // the nonzeros in row-major order of W (sparse only)
  bool use_sparse = false;

  Linear() = default;
  explicit Linear(const Mat& w) : dense(w) {
    for (Eigen::Index r = 0; r < w.rows(); ++r) {
      for (Eigen::Index c = 0; c < w.cols(); ++c) {
        if (w(r, c) != S(0)) entries.push_back({r, c, w(r, c)});
      }
    }
    // A quarter dense or sparser: n * nnz multiply-adds against the GEMM's
    // n * rows * cols plus packing.
    // A tiny matrix (at most 64 nonzeros) too: there the GEMM's packing and
    // blocking cost more than the whole loop (a 2 x 15 FFN layer of a
    // compiled model, half dense, took 5% of a run through the GEMM).
    const Eigen::Index nnz = static_cast<Eigen::Index>(entries.size());
    use_sparse = w.size() > 0 && (4 * nnz <= w.size() || nnz <= 64);
    if (!use_sparse) entries.clear();
  }
  Eigen::Index rows() const { return dense.rows(); }
  // y = x W^T (y resized; its storage is reused when the size is unchanged).
  // force_dense: the dense GEMM whatever the sparsity (the reference path).
  template <typename In>
  void apply(const In& x, Mat& y, bool force_dense = false) const {
    resize_buffer(y, x.rows(), dense.rows());
    if (!use_sparse || force_dense) {
      y.noalias() = x * dense.transpose();
      return;
    }
    y.setZero();
    add(x, y);
  }
  // y += x W^T (x and y row-major matrices: raw rows are read and written).
  template <typename In>
  void add(const In& x, Mat& y, bool force_dense = false) const {
    if (!use_sparse || force_dense) {
      y.noalias() += x * dense.transpose();
      return;
    }
    // Entry by entry, each down a block of rows: the entry's weight and
    // indices are read once per block, and the rows' additions are
    // independent of one another (a row-by-row loop chains an output's
    // additions through memory): 1.05x-1.14x faster on compiled models.
    // Blocks of kRowBlock rows keep a long word's rows in cache across the
    // entries. Each row's output still gets the entries' additions in their
    // order.
    constexpr Eigen::Index kRowBlock = 64;
    const Eigen::Index xs = x.outerStride(), ys = y.outerStride();
    for (Eigen::Index r0 = 0; r0 < x.rows(); r0 += kRowBlock) {
      const Eigen::Index rows = std::min(kRowBlock, x.rows() - r0);
      const auto* xb = x.data() + r0 * xs;
      S* yb = y.data() + r0 * ys;
      for (const Entry& e : entries) {
        const S w = e.w;
        const auto* xc = xb + e.in;
        S* yc = yb + e.out;
        for (Eigen::Index i = 0; i < rows; ++i) yc[i * ys] += w * xc[i * xs];
      }
    }
  }
};

}  // namespace softhat::model
