// Device discovery, stream-ordered allocation and copies of the CUDA backend.
#include <cuda_runtime.h>

#include <string>

#include "cuda/check.hpp"
#include "cuda_backend.hpp"

namespace vitals::kernels::cuda_backend {

bool built() { return true; }

void* allocate(std::size_t bytes, Stream stream) {
    if (bytes == 0) return nullptr;
    void* address = nullptr;
    const cudaError_t status = cudaMallocAsync(&address, bytes, stream);
    if (status != cudaSuccess) {
        // The size belongs in an out-of-memory message.
        const std::string call = "cudaMallocAsync of " + std::to_string(bytes) + " bytes";
        detail::check_cuda(status, call.c_str(), __FILE__, __LINE__);
    }
    return address;
}

void deallocate(void* address, Stream stream) noexcept {
    if (address == nullptr) return;
    VITALS_IGNORE_STATUS(cudaFreeAsync(address, stream));
}

void copy(void* dst, const void* src, std::size_t bytes, CopyKind kind, Stream stream) {
    if (bytes == 0) return;
    cudaMemcpyKind direction = cudaMemcpyDeviceToDevice;
    switch (kind) {
        case CopyKind::host_to_device: direction = cudaMemcpyHostToDevice; break;
        case CopyKind::device_to_host: direction = cudaMemcpyDeviceToHost; break;
        case CopyKind::device_to_device: direction = cudaMemcpyDeviceToDevice; break;
    }
    VITALS_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, direction, stream));
    if (kind == CopyKind::device_to_host) VITALS_CUDA_CHECK(cudaStreamSynchronize(stream));
}

void fill_zero(void* dst, std::size_t bytes, Stream stream) {
    if (bytes == 0) return;
    VITALS_CUDA_CHECK(cudaMemsetAsync(dst, 0, bytes, stream));
}

void synchronize(Stream stream) { VITALS_CUDA_CHECK(cudaStreamSynchronize(stream)); }

}  // namespace vitals::kernels::cuda_backend
