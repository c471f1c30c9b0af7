// Why no CUDA device is usable, in words that say what is missing and what to do: built
// from what the probe saw (device.cpp), so each case can be checked without a machine
// that has it. Internal.
#pragma once

#include <string>

namespace vitals::cuda_parts {

// What the device probe saw, in order: the driver library, the device count, then a
// context on the first device.
struct DeviceProbe {
    bool driver_found = true;     // libcuda.so.1 opens
    std::string driver_missing;   // the loader's message when it does not
    int count_status = 0;         // cudaGetDeviceCount's cudaError_t
    std::string count_error;      // its cudaGetErrorString
    int device_count = 0;
    int context_status = 0;       // cudaFree(nullptr) on device 0: creates the context
    std::string context_error;
    int driver_version = 0;       // cudaDriverGetVersion: 12020 is CUDA 12.2; 0 for none
    int runtime_version = 0;      // cudaRuntimeGetVersion: the runtime vitals was built with
};

// "" when the device is usable, otherwise the reason for a "skipped: <reason>" line.
std::string describe_device_probe(const DeviceProbe& probe);

// Why CUPTI cannot record activity, from the CUptiResult of the call that failed (`call`
// says what it was for) and CUPTI's own text for it.
std::string describe_cupti_failure(int status, const std::string& call, const std::string& text);

// "12.2" for 12020.
std::string cuda_version_text(int version);

}  // namespace vitals::cuda_parts
