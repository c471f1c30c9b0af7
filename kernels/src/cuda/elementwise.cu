// Elementwise kernels of the CUDA backend. The math is in the functors of elementwise.hpp, shared
// with the CPU loops; this file only maps them over device arrays.
#include <cub/device/device_reduce.cuh>
#include <cuda_runtime.h>
#include <thrust/iterator/counting_iterator.h>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>

#include "cuda/check.hpp"
#include "cuda/scratch.hpp"
#include "cuda_backend.hpp"
#include "elementwise.hpp"

namespace vitals::kernels::cuda_backend {
namespace {

namespace ew = vitals::kernels::elementwise;

template <class In, class Out, class F>
__global__ void map_kernel(const In* x, Out* out, std::int64_t n, F f) {
    for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n;
         i += std::int64_t(gridDim.x) * blockDim.x) {
        out[i] = static_cast<Out>(f(x[i]));
    }
}

// `out` may alias `x` (sgd_step updates in place): each element is read before it is written.
template <class T, class F>
__global__ void zip_kernel(const T* x, const T* y, T* out, std::int64_t n, F f) {
    for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n;
         i += std::int64_t(gridDim.x) * blockDim.x) {
        out[i] = f(x[i], y[i]);
    }
}

template <class In, class Out, class F>
void map(const In* x, Out* out, std::int64_t n, F f, Stream stream) {
    if (n == 0) return;
    map_kernel<<<detail::blocks_for(n), detail::threads_per_block, 0, stream>>>(x, out, n, f);
    VITALS_CUDA_CHECK_LAUNCH(map_kernel);
}

template <class T, class F>
void zip(const T* x, const T* y, T* out, std::int64_t n, F f, Stream stream) {
    if (n == 0) return;
    zip_kernel<<<detail::blocks_for(n), detail::threads_per_block, 0, stream>>>(x, y, out, n, f);
    VITALS_CUDA_CHECK_LAUNCH(zip_kernel);
}

// The squared error of element i, so CUB can reduce over indices without a zip iterator.
template <class T>
struct SquaredErrorAt {
    const T* pred;
    const T* target;
    __device__ T operator()(std::int64_t i) const { return ew::SquaredError<T>{}(pred[i], target[i]); }
};

template <class T>
__global__ void divide_scalar_kernel(T* value, T divisor) {
    *value = *value / divisor;
}

template <class T>
__global__ void store_scalar_kernel(T* destination, T value) {
    *destination = value;
}


}  // namespace

template <class T>
void relu(const T* x, T* out, std::int64_t n, Stream stream) {
    map(x, out, n, ew::Relu{}, stream);
}

template <class T>
void relu_backward(const T* grad, const T* input, T* out, std::int64_t n, Stream stream) {
    zip(grad, input, out, n, ew::ReluBackward{}, stream);
}

template <class T, class M>
void relation_mask(const T* x, Relation op, T scalar, M* out, std::int64_t n, Stream stream) {
    map(x, out, n, ew::RelationOp<T>{op, scalar}, stream);
}

template <class T>
void mse_loss(const T* pred, const T* target, T* out, std::int64_t n, Stream stream) {
    if (n == 0) {
        // The mean of nothing, as torch gives it.
        store_scalar_kernel<<<1, 1, 0, stream>>>(out, std::numeric_limits<T>::quiet_NaN());
        VITALS_CUDA_CHECK_LAUNCH(store_scalar_kernel);
        return;
    }
    const thrust::counting_iterator<std::int64_t> indices(0);
    const SquaredErrorAt<T> squared_error{pred, target};
    const auto sum = [&](void* temp_storage, std::size_t& temp_bytes) {
        return cub::DeviceReduce::TransformReduce(temp_storage, temp_bytes, indices, out, n, ::cuda::std::plus<T>{},
                                                  squared_error, T(0), stream);
    };
    std::size_t temp_bytes = 0;
    VITALS_CUDA_CHECK(sum(nullptr, temp_bytes));
    const StreamBuffer temp_storage(allocate(temp_bytes, stream), StreamFree{stream});
    VITALS_CUDA_CHECK(sum(temp_storage.get(), temp_bytes));
    divide_scalar_kernel<<<1, 1, 0, stream>>>(out, static_cast<T>(n));
    VITALS_CUDA_CHECK_LAUNCH(divide_scalar_kernel);
}

template <class T>
void mse_loss_backward(const T* pred, const T* target, T* out, std::int64_t n, Stream stream) {
    zip(pred, target, out, n, ew::MseBackward<T>{T(2) / static_cast<T>(n)}, stream);
}

template <class T>
void sgd_step(T* param, const T* grad, T lr, std::int64_t n, Stream stream) {
    zip(param, grad, param, n, ew::SgdStep<T>{lr}, stream);
}

#define VITALS_INSTANTIATE_ELEMENTWISE(T)                                                                           \
    template void relu<T>(const T*, T*, std::int64_t, Stream);                                                      \
    template void relu_backward<T>(const T*, const T*, T*, std::int64_t, Stream);                                   \
    template void relation_mask<T, bool>(const T*, Relation, T, bool*, std::int64_t, Stream);                       \
    template void relation_mask<T, float>(const T*, Relation, T, float*, std::int64_t, Stream);                     \
    template void relation_mask<T, double>(const T*, Relation, T, double*, std::int64_t, Stream);                   \
    template void mse_loss<T>(const T*, const T*, T*, std::int64_t, Stream);                                        \
    template void mse_loss_backward<T>(const T*, const T*, T*, std::int64_t, Stream);                               \
    template void sgd_step<T>(T*, const T*, T, std::int64_t, Stream);
VITALS_INSTANTIATE_ELEMENTWISE(float)
VITALS_INSTANTIATE_ELEMENTWISE(double)
#undef VITALS_INSTANTIATE_ELEMENTWISE

}  // namespace vitals::kernels::cuda_backend
