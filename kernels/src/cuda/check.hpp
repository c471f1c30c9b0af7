// Status checks of the CUDA backend: a failed CUDA or cuBLAS call throws std::runtime_error
// "file:line: <call> failed: <library's error string> (<error name>)". Internal header, for .cu files.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include "cuda/cublas_api.hpp"

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace vitals::kernels::cuda_backend::detail {

[[noreturn]] inline void throw_call_failure(const char* call, const char* file, int line, const char* message,
                                            const char* error_name) {
    // std::string, not fmt: nvcc rejects fmt's compile-time format checks.
    throw std::runtime_error(std::string(file) + ":" + std::to_string(line) + ": " + call + " failed: " + message +
                             " (" + error_name + ")");
}

inline void check_cuda(cudaError_t status, const char* call, const char* file, int line) {
    if (status != cudaSuccess) {
        // Reading the error also clears it from the thread's last-error slot, so the next launch check is clean.
        cudaGetLastError();
        throw_call_failure(call, file, line, cudaGetErrorString(status), cudaGetErrorName(status));
    }
}

inline void check_cublas(cublasStatus_t status, const char* call, const char* file, int line) {
    if (status != CUBLAS_STATUS_SUCCESS) {
        throw_call_failure(call, file, line, cublas().status_string(status), cublas().status_name(status));
    }
}

// For destructors and frees, which have no one to report to. A CUDA error is still cleared from the
// thread's last-error slot, or the next launch check would report it against an unrelated kernel.
inline void ignore_status(cudaError_t status) noexcept {
    if (status != cudaSuccess) cudaGetLastError();
}
inline void ignore_status(cublasStatus_t) noexcept {}

// Blocks for a grid-stride loop over n elements: enough to fill any current GPU, few enough
// that large inputs give each thread several elements.
constexpr int threads_per_block = 256;
inline unsigned blocks_for(std::int64_t n) {
    constexpr std::int64_t max_blocks = 8192;
    return static_cast<unsigned>(std::clamp<std::int64_t>((n + threads_per_block - 1) / threads_per_block, 1,
                                                          max_blocks));
}

}  // namespace vitals::kernels::cuda_backend::detail

#define VITALS_CUDA_CHECK(call) ::vitals::kernels::cuda_backend::detail::check_cuda((call), #call, __FILE__, __LINE__)
#define VITALS_CUBLAS_CHECK(call) \
    ::vitals::kernels::cuda_backend::detail::check_cublas((call), #call, __FILE__, __LINE__)
// After a <<<...>>> launch, which returns nothing: reports a bad configuration or an earlier asynchronous failure.
#define VITALS_CUDA_CHECK_LAUNCH(kernel) \
    ::vitals::kernels::cuda_backend::detail::check_cuda(cudaGetLastError(), "launch of " #kernel, __FILE__, __LINE__)
#define VITALS_IGNORE_STATUS(call) ::vitals::kernels::cuda_backend::detail::ignore_status(call)
