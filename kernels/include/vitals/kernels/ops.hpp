// The operations vitals measures. Each works on CPU (Eigen) and CUDA (cuBLAS, CUB,
// small kernels of our own) tensors, in float32 and float64 where the math allows.
// Every operation enters through one point (see op_hooks.hpp), so the profiler can
// record each call with its input shapes.
//
// Bad input throws std::invalid_argument naming the operation and the tensors:
// shape or dtype mismatches, mixed devices.
#pragma once

#include "vitals/kernels/tensor.hpp"

namespace vitals::kernels {

// a @ b for 2-D a [m, k], b [k, n] (either transposed first when asked).
Tensor matmul(const Tensor& a, const Tensor& b, bool transpose_a = false, bool transpose_b = false);
// bias + a @ op(b), bias of shape [n] broadcast over the rows.
Tensor addmm(const Tensor& bias, const Tensor& a, const Tensor& b, bool transpose_b = false);
// x @ weight^T + bias, weight [out, in] as torch.nn.Linear stores it; calls addmm.
Tensor linear(const Tensor& x, const Tensor& weight, const Tensor& bias);
// Column sums of a 2-D tensor: [m, n] -> [n] (bias gradients).
Tensor sum_rows(const Tensor& x);

Tensor relu(const Tensor& x);
// grad where input > 0, else 0.
Tensor relu_backward(const Tensor& grad, const Tensor& input);

enum class Relation { gt, ge, lt, le, eq, ne };
// Elementwise x OP scalar, as a mask of `mask_dtype` (bool, f32 or f64; 1 or 0).
Tensor relation_mask(const Tensor& x, Relation op, double scalar, DType mask_dtype = DType::boolean);
inline Tensor gt(const Tensor& x, double scalar, DType mask_dtype = DType::boolean) {
    return relation_mask(x, Relation::gt, scalar, mask_dtype);
}
inline Tensor lt(const Tensor& x, double scalar, DType mask_dtype = DType::boolean) {
    return relation_mask(x, Relation::lt, scalar, mask_dtype);
}

// Indices of the non-zero elements: int64 [hits, dim], one row per hit in row-major
// order, like torch.nonzero. Any dtype.
Tensor nonzero(const Tensor& x);
// The elements of x where mask is non-zero, in order, as a 1-D tensor. Same shapes.
Tensor masked_select(const Tensor& x, const Tensor& mask);

// mean((pred - target)^2) as a 0-D tensor; and its gradient with respect to pred.
Tensor mse_loss(const Tensor& pred, const Tensor& target);
Tensor mse_loss_backward(const Tensor& pred, const Tensor& target);

// param -= lr * grad, in place.
void sgd_step(Tensor& param, const Tensor& grad, double lr);

// A copy between devices (or on one device); the profiler sees it as an operation.
Tensor copy_to(const Tensor& x, Device device);

}  // namespace vitals::kernels
