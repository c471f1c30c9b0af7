// Why a GPU is unusable, for each condition a user meets, from what the device probe
// saw: each one simulated here as the probe's record (no driver, an old driver, no
// device, a device held exclusively) or CUPTI's status code.
#include <gtest/gtest.h>

#include <cupti.h>
#include <driver_types.h>

#include <string>

#include "device_reasons.hpp"

using vitals::cuda_parts::describe_cupti_failure;
using vitals::cuda_parts::describe_device_probe;
using vitals::cuda_parts::DeviceProbe;

namespace {

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

DeviceProbe usable() { return {.device_count = 1, .driver_version = 13000, .runtime_version = 13000}; }

}  // namespace

TEST(CudaReasons, AUsableDeviceHasNoReason) { EXPECT_EQ(describe_device_probe(usable()), ""); }

// The static runtime alone would say "CUDA driver version is insufficient for CUDA
// runtime version", which sends users looking for a driver upgrade.
TEST(CudaReasons, NoDriverNamesTheMissingLibrary) {
    DeviceProbe p = usable();
    p.driver_found = false;
    p.driver_missing = "libcuda.so.1: cannot open shared object file: No such file or directory";
    const std::string why = describe_device_probe(p);
    EXPECT_EQ(why,
              "no NVIDIA driver (libcuda.so.1: cannot open shared object file: No such file or directory): install the "
              "NVIDIA driver to use a GPU");
    EXPECT_FALSE(contains(why, "insufficient")) << why;
}

TEST(CudaReasons, AnOldDriverGivesBothVersions) {
    DeviceProbe p = usable();
    p.count_status = cudaErrorInsufficientDriver;
    p.count_error = "CUDA driver version is insufficient for CUDA runtime version";
    p.driver_version = 12020;
    p.runtime_version = 13000;
    const std::string why = describe_device_probe(p);
    EXPECT_TRUE(contains(why, "the NVIDIA driver supports CUDA 12.2, older than the CUDA 13.0 runtime")) << why;
    EXPECT_TRUE(contains(why, "update the driver")) << why;
    p.driver_version = 0;
    EXPECT_TRUE(contains(describe_device_probe(p), "reports no CUDA version")) << describe_device_probe(p);
}

TEST(CudaReasons, NoDeviceSaysTheDriverSeesNone) {
    DeviceProbe p = usable();
    p.count_status = cudaErrorNoDevice;
    EXPECT_TRUE(contains(describe_device_probe(p), "no CUDA device found")) << describe_device_probe(p);
    p = usable();
    p.device_count = 0;
    EXPECT_TRUE(contains(describe_device_probe(p), "no CUDA device found")) << describe_device_probe(p);
}

TEST(CudaReasons, ADeviceHeldExclusivelyIsNamedAsSuch) {
    DeviceProbe p = usable();
    p.context_status = cudaErrorDevicesUnavailable;
    p.context_error = "CUDA-capable device(s) is/are busy or unavailable";
    const std::string why = describe_device_probe(p);
    EXPECT_TRUE(contains(why, "another process holds it in exclusive-process compute mode")) << why;
}

TEST(CudaReasons, AnyOtherFailureKeepsTheRuntimesOwnWords) {
    DeviceProbe p = usable();
    p.context_status = cudaErrorUnknown;
    p.context_error = "unknown error";
    EXPECT_EQ(describe_device_probe(p), "no usable CUDA device (unknown error)");
}

TEST(CudaReasons, CuptiHeldByAnotherToolOrRestrictedIsSaid) {
    EXPECT_TRUE(contains(describe_cupti_failure(CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED, "record activity", "x"),
                         "another tool holds CUPTI"));
    EXPECT_TRUE(contains(describe_cupti_failure(CUPTI_ERROR_INSUFFICIENT_PRIVILEGES, "record activity", "x"),
                         "not allowed to profile here"));
    EXPECT_EQ(describe_cupti_failure(CUPTI_ERROR_UNKNOWN, "record activity", "CUPTI_ERROR_UNKNOWN"),
              "CUPTI cannot record activity: CUPTI_ERROR_UNKNOWN");
}

TEST(CudaReasons, VersionsReadAsCudaWritesThem) {
    EXPECT_EQ(vitals::cuda_parts::cuda_version_text(12020), "12.2");
    EXPECT_EQ(vitals::cuda_parts::cuda_version_text(13000), "13.0");
    EXPECT_EQ(vitals::cuda_parts::cuda_version_text(11080), "11.8");
}
