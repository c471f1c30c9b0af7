// Device discovery, stream-ordered allocation and copies of the CUDA backend.
#include <cuda_runtime.h>

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>

#include "cuda/check.hpp"
#include "cuda_backend.hpp"

namespace vitals::kernels::cuda_backend {

bool built() { return true; }

namespace {

// The device's default memory pool keeps what is freed to it: with its release threshold
// at 0 (CUDA's default) it returns memory to the OS at every synchronisation, so an op
// that synchronises inside each call (nonzero, masked_select) would map its memory again
// at every call, and time the driver. Raised once per device, at its first allocation.
void keep_freed_memory_in_pool() {
    constexpr int kMaxDevices = 64;
    static std::atomic<bool> raised[kMaxDevices] = {};
    int device = 0;
    if (cudaGetDevice(&device) != cudaSuccess) {
        cudaGetLastError();
        return;  // the allocation reports the problem
    }
    if (device < 0 || device >= kMaxDevices || raised[device].load(std::memory_order_acquire)) return;
    static std::mutex mutex;
    std::lock_guard lock(mutex);
    if (raised[device].load(std::memory_order_relaxed)) return;
    cudaMemPool_t pool = nullptr;
    VITALS_CUDA_CHECK(cudaDeviceGetDefaultMemPool(&pool, device));
    std::uint64_t threshold = UINT64_MAX;
    VITALS_CUDA_CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold));
    raised[device].store(true, std::memory_order_release);
}

}  // namespace

void* allocate(std::size_t bytes, Stream stream) {
    if (bytes == 0) return nullptr;
    keep_freed_memory_in_pool();
    void* address = nullptr;
    const cudaError_t status = cudaMallocAsync(&address, bytes, stream);
    if (status != cudaSuccess) {
        // The size belongs in an out-of-memory message.
        const std::string call = "cudaMallocAsync of " + std::to_string(bytes) + " bytes";
        detail::check_cuda(status, call.c_str(), __FILE__, __LINE__);
    }
    return address;
}

// On `stream`, the one the block was allocated on (the allocator remembers it).
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
