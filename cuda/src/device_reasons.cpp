#include "device_reasons.hpp"

#include <cupti.h>
#include <driver_types.h>

namespace vitals::cuda_parts {
namespace {

std::string insufficient_driver(const DeviceProbe& p) {
    if (p.driver_version == 0) {
        return "the NVIDIA driver is installed but reports no CUDA version (a driver without CUDA support, or one "
               "whose kernel module is not loaded: check nvidia-smi)";
    }
    return "the NVIDIA driver supports CUDA " + cuda_version_text(p.driver_version) + ", older than the CUDA " +
           cuda_version_text(p.runtime_version) +
           " runtime vitals was built with: update the driver, or build vitals with a CUDA toolkit the driver supports";
}

// The status of a call that failed, in words.
std::string failure(int status, const std::string& error, const DeviceProbe& p) {
    switch (status) {
        case cudaErrorInsufficientDriver: return insufficient_driver(p);
        case cudaErrorNoDevice: return "no CUDA device found (the NVIDIA driver is installed but sees no GPU)";
        case cudaErrorDevicesUnavailable:
            return "every CUDA device is busy or unavailable: another process holds it in exclusive-process compute "
                   "mode (nvidia-smi -q -d COMPUTE shows the mode)";
        default: return "no usable CUDA device (" + error + ")";
    }
}

}  // namespace

std::string describe_cupti_failure(int status, const std::string& call, const std::string& text) {
    switch (status) {
        case CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED:
            return "another tool holds CUPTI (Nsight Systems or Compute, or another profiler in this process): stop it, "
                   "or profile without CUDA activity";
        case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES:
            return "CUPTI is not allowed to profile here (the driver restricts GPU performance counters to "
                   "administrators: NVreg_RestrictProfilingToAdminUsers)";
        default: return "CUPTI cannot " + call + ": " + text;
    }
}

std::string cuda_version_text(int version) {
    return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

std::string describe_device_probe(const DeviceProbe& p) {
    if (!p.driver_found) {
        return "no NVIDIA driver (" + p.driver_missing + "): install the NVIDIA driver to use a GPU";
    }
    if (p.count_status != cudaSuccess) return failure(p.count_status, p.count_error, p);
    if (p.device_count == 0) return "no CUDA device found (the NVIDIA driver is installed but sees no GPU)";
    if (p.context_status != cudaSuccess) return failure(p.context_status, p.context_error, p);
    return "";
}

}  // namespace vitals::cuda_parts
