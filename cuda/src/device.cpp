// Whether a CUDA device is usable, asked of the CUDA runtime once per process.
#include <cuda_runtime_api.h>

#include "parts.hpp"

namespace vitals::cuda_parts {
namespace {

std::string probe_device() {
    int count = 0;
    const cudaError_t status = cudaGetDeviceCount(&count);
    if (status != cudaSuccess) {
        cudaGetLastError();  // clear the sticky error so later calls start clean
        return std::string("no usable CUDA device (") + cudaGetErrorString(status) + ")";
    }
    if (count == 0) return "no CUDA device found";
    return "";
}

}  // namespace

// Asked once: the answer does not change while the process runs.
std::string unavailable_reason() {
    static const std::string reason = probe_device();
    return reason;
}

void device_synchronize() {
    if (!unavailable_reason().empty()) return;
    if (cudaDeviceSynchronize() != cudaSuccess) cudaGetLastError();  // nothing to report to; start clean
}

}  // namespace vitals::cuda_parts
