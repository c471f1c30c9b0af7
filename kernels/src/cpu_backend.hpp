// The CPU side of the kernel set, as plain functions over host pointers: Eigen for
// products, plain loops over the functors of elementwise.hpp (which the CUDA kernels call
// too) for elementwise work (nonzero and masked_select have a folder of their own,
// scan/). Internal: implemented in src/cpu_backend.cpp, for T = float or double; ops.cpp
// checks the arguments first. Synchronous.
#pragma once

#include <cstdint>

#include "vitals/kernels/ops.hpp"

namespace vitals::kernels::cpu_backend {

// Row-major C[m, n] = op(A) @ op(B) (+ C when accumulate), op = transpose when asked.
// A is [m, k] (or [k, m] when transpose_a), B is [k, n] (or [n, k] when transpose_b).
template <class T>
void gemm(bool transpose_a, bool transpose_b, std::int64_t m, std::int64_t n, std::int64_t k, const T* a, const T* b,
          T* c, bool accumulate);
// c[i, j] = bias[j] for a [rows, cols] c (the addmm bias, before gemm accumulates).
template <class T>
void broadcast_rows(const T* bias, T* c, std::int64_t rows, std::int64_t cols);
// out[j] = sum_i x[i, j].
template <class T>
void sum_rows(const T* x, T* out, std::int64_t rows, std::int64_t cols);

template <class T>
void relu(const T* x, T* out, std::int64_t n);
template <class T>
void relu_backward(const T* grad, const T* input, T* out, std::int64_t n);
// out[i] = (x[i] OP scalar) ? 1 : 0, M = bool, float or double.
template <class T, class M>
void relation_mask(const T* x, Relation op, T scalar, M* out, std::int64_t n);

// *out = mean((pred - target)^2); NaN for n == 0.
template <class T>
void mse_loss(const T* pred, const T* target, T* out, std::int64_t n);
// out = 2 * (pred - target) / n.
template <class T>
void mse_loss_backward(const T* pred, const T* target, T* out, std::int64_t n);
// param -= lr * grad.
template <class T>
void sgd_step(T* param, const T* grad, T lr, std::int64_t n);

}  // namespace vitals::kernels::cpu_backend
