// The CUDA side of the kernel set, as plain functions over device pointers.
// Internal: implemented in src/cuda/*.cu (or src/no_cuda_backend.cpp, which throws, in a
// build without CUDA). Host-only header: no CUDA types appear here.
//
// Everything is asynchronous on `stream` unless it says it synchronises. Every CUDA,
// cuBLAS and CUB status is checked; a failure throws std::runtime_error carrying the
// library's own error string and file:line.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "vitals/kernels/ops.hpp"

struct CUstream_st;

namespace vitals::kernels::cuda_backend {

using Stream = CUstream_st*;

bool built();

// cudaMallocAsync from the device's default pool, whose release threshold the first
// allocation on a device raises to the maximum (freed memory stays in the pool).
void* allocate(std::size_t bytes, Stream stream);
// cudaFreeAsync, on the stream the block was allocated on.
void deallocate(void* address, Stream stream) noexcept;
enum class CopyKind { host_to_device, device_to_host, device_to_device };
// Device-to-host copies synchronise the stream before returning, so the host sees data.
void copy(void* dst, const void* src, std::size_t bytes, CopyKind kind, Stream stream);
void fill_zero(void* dst, std::size_t bytes, Stream stream);
void synchronize(Stream stream);

// Row-major C[m, n] = op(A) @ op(B) (+ C when accumulate), op = transpose when asked.
// A is [m, k] (or [k, m] when transpose_a), B is [k, n] (or [n, k] when transpose_b).
// T = float or double (cuBLAS sgemm/dgemm).
template <class T>
void gemm(bool transpose_a, bool transpose_b, std::int64_t m, std::int64_t n, std::int64_t k, const T* a, const T* b,
          T* c, bool accumulate, Stream stream);
// c[i, j] = bias[j] for a [rows, cols] c (the addmm bias, before gemm accumulates).
template <class T>
void broadcast_rows(const T* bias, T* c, std::int64_t rows, std::int64_t cols, Stream stream);
// out[j] = sum_i x[i, j].
template <class T>
void sum_rows(const T* x, T* out, std::int64_t rows, std::int64_t cols, Stream stream);

template <class T>
void relu(const T* x, T* out, std::int64_t n, Stream stream);
template <class T>
void relu_backward(const T* grad, const T* input, T* out, std::int64_t n, Stream stream);
// out[i] = (x[i] OP scalar) ? 1 : 0, M = bool, float or double.
template <class T, class M>
void relation_mask(const T* x, Relation op, T scalar, M* out, std::int64_t n, Stream stream);

// Flat indices of the non-zero elements of x (dtype given), in order, into flat_out
// (capacity n). Synchronises: returns the count.
std::int64_t nonzero_flat(const void* x, DType dtype, std::int64_t n, std::int64_t* flat_out, Stream stream);
// Row-major coordinates of `count` flat indices for a tensor of `shape`:
// out[i * shape.size() + d].
void unravel(const std::int64_t* flat, std::int64_t count, const Shape& shape, std::int64_t* out, Stream stream);
// Elements of x where mask (of mask_dtype) is non-zero, in order, into out (capacity n).
// Synchronises: returns the count.
template <class T>
std::int64_t masked_select(const T* x, const void* mask, DType mask_dtype, std::int64_t n, T* out, Stream stream);

// *out = mean((pred - target)^2), out a device scalar.
template <class T>
void mse_loss(const T* pred, const T* target, T* out, std::int64_t n, Stream stream);
// out = 2 * (pred - target) / n.
template <class T>
void mse_loss_backward(const T* pred, const T* target, T* out, std::int64_t n, Stream stream);
// param -= lr * grad.
template <class T>
void sgd_step(T* param, const T* grad, T lr, std::int64_t n, Stream stream);

}  // namespace vitals::kernels::cuda_backend
