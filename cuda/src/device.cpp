// Whether a CUDA device is usable, asked once per process: the driver library first (the
// static runtime would only say "CUDA driver version is insufficient" without one), then
// the runtime's device count, then a context on the first device.
#include <cuda_runtime_api.h>

#include "device_reasons.hpp"
#include "parts.hpp"
#include "vitals/shared_library.hpp"

namespace vitals::cuda_parts {
namespace {

DeviceProbe probe_device() {
    DeviceProbe probe;
    probe.driver_found = shared_library_exists("libcuda.so.1", &probe.driver_missing);
    if (!probe.driver_found) return probe;
    cudaDriverGetVersion(&probe.driver_version);
    cudaRuntimeGetVersion(&probe.runtime_version);
    cudaError_t status = cudaGetDeviceCount(&probe.device_count);
    probe.count_status = status;
    if (status != cudaSuccess) {
        cudaGetLastError();  // clear the sticky error so later calls start clean
        probe.count_error = cudaGetErrorString(status);
        return probe;
    }
    if (probe.device_count == 0) return probe;
    status = cudaFree(nullptr);  // creates the primary context: fails on a device held exclusively
    probe.context_status = status;
    if (status != cudaSuccess) {
        cudaGetLastError();
        probe.context_error = cudaGetErrorString(status);
    }
    return probe;
}

}  // namespace

// Asked once: the answer does not change while the process runs.
std::string unavailable_reason() {
    static const std::string reason = describe_device_probe(probe_device());
    return reason;
}

void device_synchronize() {
    if (!unavailable_reason().empty()) return;
    if (cudaDeviceSynchronize() != cudaSuccess) cudaGetLastError();  // nothing to report to; start clean
}

}  // namespace vitals::cuda_parts
