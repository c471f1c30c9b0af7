// The kernel that holds a stream while a timed block's calls are queued behind it (as
// NVBench's blocking kernel does). The only device code of vitals::cuda.
#include <cuda_runtime.h>

#include "hold.hpp"

namespace vitals::cuda_parts {
namespace {

__device__ unsigned long long global_ns() {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

// Spins until the host sets *release, or for at most timeout_ns; says which in *timed_out.
__global__ void hold_stream(const volatile int* release, volatile int* timed_out, unsigned long long timeout_ns) {
    const unsigned long long start = global_ns();
    while (*release == 0) {
        if (global_ns() - start > timeout_ns) {
            *timed_out = 1;
            __threadfence_system();
            return;
        }
    }
}

}  // namespace

cudaError_t launch_hold(CUstream_st* stream, const volatile int* release, volatile int* timed_out,
                        unsigned long long timeout_ns) {
    hold_stream<<<1, 1, 0, stream>>>(release, timed_out, timeout_ns);
    return cudaGetLastError();
}

}  // namespace vitals::cuda_parts
