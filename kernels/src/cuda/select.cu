// nonzero and masked_select of the CUDA backend: stream compaction with CUB, flags decided by
// IsNonZero of elementwise.hpp on the flag tensor's own dtype.
#include <cub/device/device_select.cuh>
#include <cuda_runtime.h>
#include <thrust/iterator/counting_iterator.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>

#include "cuda/check.hpp"
#include "cuda/scratch.hpp"
#include "cuda_backend.hpp"
#include "elementwise.hpp"

namespace vitals::kernels::cuda_backend {
namespace {

// Copies items[i] to out, in order, where flags[i] is non-zero; returns how many (synchronises).
template <class Items, class Flag, class Out>
std::int64_t select_where_nonzero(Items items, const Flag* flags, std::int64_t n, Out* out, Stream stream) {
    const elementwise::IsNonZero<Flag> is_nonzero;
    std::size_t temp_bytes = 0;
    VITALS_CUDA_CHECK(cub::DeviceSelect::FlaggedIf(nullptr, temp_bytes, items, flags, out,
                                                   static_cast<std::int64_t*>(nullptr), n, is_nonzero, stream));
    // One allocation holds the device-side count, then CUB's temporary storage at CUB's alignment.
    constexpr std::size_t count_slot = 256;
    const StreamBuffer scratch(allocate(count_slot + temp_bytes, stream), StreamFree{stream});
    auto* const selected_count = static_cast<std::int64_t*>(scratch.get());
    void* const temp_storage = static_cast<std::byte*>(scratch.get()) + count_slot;
    VITALS_CUDA_CHECK(cub::DeviceSelect::FlaggedIf(temp_storage, temp_bytes, items, flags, out, selected_count, n,
                                                   is_nonzero, stream));
    std::int64_t count = 0;
    copy(&count, selected_count, sizeof(count), CopyKind::device_to_host, stream);
    return count;
}

template <class Items, class Out>
std::int64_t select_where_nonzero(Items items, const void* flags, DType flag_dtype, std::int64_t n, Out* out,
                                  Stream stream) {
    if (n == 0) return 0;
    switch (flag_dtype) {
        case DType::f32: return select_where_nonzero(items, static_cast<const float*>(flags), n, out, stream);
        case DType::f64: return select_where_nonzero(items, static_cast<const double*>(flags), n, out, stream);
        case DType::boolean: return select_where_nonzero(items, static_cast<const bool*>(flags), n, out, stream);
        case DType::i64: return select_where_nonzero(items, static_cast<const std::int64_t*>(flags), n, out, stream);
    }
    throw std::invalid_argument("cuda_backend: unknown dtype " + std::to_string(static_cast<int>(flag_dtype)));
}

constexpr std::size_t max_unravel_dims = 8;

// Passed by value as a kernel argument, so unravel needs no device copy of the shape.
struct Extents {
    std::int64_t extent[max_unravel_dims];
    int dims;
};

__global__ void unravel_kernel(const std::int64_t* flat, std::int64_t count, Extents shape, std::int64_t* out) {
    for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < count;
         i += std::int64_t(gridDim.x) * blockDim.x) {
        std::int64_t rest = flat[i];
        std::int64_t* const coordinates = out + i * shape.dims;
        for (int d = shape.dims - 1; d >= 0; --d) {
            coordinates[d] = rest % shape.extent[d];
            rest /= shape.extent[d];
        }
    }
}

}  // namespace

std::int64_t nonzero_flat(const void* x, DType dtype, std::int64_t n, std::int64_t* flat_out, Stream stream) {
    return select_where_nonzero(thrust::counting_iterator<std::int64_t>(0), x, dtype, n, flat_out, stream);
}

void unravel(const std::int64_t* flat, std::int64_t count, const Shape& shape, std::int64_t* out, Stream stream) {
    if (shape.size() > max_unravel_dims) {
        throw std::invalid_argument("cuda_backend::unravel: " + std::to_string(shape.size()) +
                                    " dimensions, at most " + std::to_string(max_unravel_dims) + " supported");
    }
    // A 0-D tensor has no coordinates to write.
    if (count == 0 || shape.empty()) return;
    Extents extents{};
    extents.dims = static_cast<int>(shape.size());
    for (std::size_t d = 0; d < shape.size(); ++d) extents.extent[d] = shape[d];
    unravel_kernel<<<detail::blocks_for(count), detail::threads_per_block, 0, stream>>>(flat, count, extents, out);
    VITALS_CUDA_CHECK_LAUNCH(unravel_kernel);
}

template <class T>
std::int64_t masked_select(const T* x, const void* mask, DType mask_dtype, std::int64_t n, T* out, Stream stream) {
    return select_where_nonzero(x, mask, mask_dtype, n, out, stream);
}

template std::int64_t masked_select<float>(const float*, const void*, DType, std::int64_t, float*, Stream);
template std::int64_t masked_select<double>(const double*, const void*, DType, std::int64_t, double*, Stream);

}  // namespace vitals::kernels::cuda_backend
