// A weight matrix applied to row-major activations (internal to lib/model):
// the engine's dense GEMM or, for compiled models' mostly-zero weights, a
// product over the nonzeros.
#pragma once

#include <Eigen/Core>

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
    const Entry* begin = entries.data();
    const Entry* end = begin + entries.size();
    // Two rows at a time: an output with several nonzeros is a chain of
    // dependent additions through memory, and the other row's chain runs
    // beside it. Each row gets the same additions in the same order.
    Eigen::Index i = 0;
    for (; i + 1 < x.rows(); i += 2) {
      const auto* x0 = x.row(i).data();
      const auto* x1 = x.row(i + 1).data();
      S* y0 = y.row(i).data();
      S* y1 = y.row(i + 1).data();
      for (const Entry* e = begin; e != end; ++e) {
        y0[e->out] += e->w * x0[e->in];
        y1[e->out] += e->w * x1[e->in];
      }
    }
    if (i < x.rows()) {
      const auto* xi = x.row(i).data();
      S* yi = y.row(i).data();
      for (const Entry* e = begin; e != end; ++e) yi[e->out] += e->w * xi[e->in];
    }
  }
};

}  // namespace softhat::model
