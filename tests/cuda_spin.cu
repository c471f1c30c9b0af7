#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

#include "cuda_spin.hpp"

namespace vitals::testing {
namespace {
void check(cudaError_t status, const char* what) {
    if (status != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(status));
}

__global__ void spin_kernel(long long cycles) {
    const long long start = clock64();
    while (clock64() - start < cycles) {
    }
}
}  // namespace

CUstream_st* create_stream() {
    cudaStream_t stream = nullptr;
    check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
    return stream;
}

void destroy_stream(CUstream_st* stream) { cudaStreamDestroy(stream); }

void launch_spin(CUstream_st* stream, long long cycles) {
    spin_kernel<<<1, 1, 0, stream>>>(cycles);
    check(cudaGetLastError(), "spin_kernel launch");
}

int clock_rate_khz() {
    int device = 0, khz = 0;
    check(cudaGetDevice(&device), "cudaGetDevice");
    check(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, device), "cudaDeviceGetAttribute");
    return khz;
}
}  // namespace vitals::testing
