// What vitals::cuda implements: the CUDA side of platform's, the timer's and the
// profiler's hooks (vitals/profiler/plug_points.hpp). Internal.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "vitals/profiler/trace.hpp"

struct CUstream_st;

namespace vitals::cuda_parts {

// Device probe (device.cpp): "" when a CUDA device is usable, otherwise why not.
std::string unavailable_reason();
// Waits for all work on the current device; nothing where no device is usable, and a
// failure is cleared, not thrown.
void device_synchronize();

// CUDA-event timing (stream_clock.cpp).
double time_on_stream(CUstream_st* stream, void (*run)(void* context), void* context);
void synchronize_stream(CUstream_st* stream);

// CUPTI activity (cupti.cpp).
std::string cupti_start();
// Synchronises the device first, so that work still running is flushed whole.
std::vector<profiler::DeviceEvent> cupti_stop();
void cupti_push_external_id(std::uint64_t id);
void cupti_pop_external_id();

// NVTX ranges (nvtx.cpp).
void nvtx_push(const char* name);
void nvtx_pop();

}  // namespace vitals::cuda_parts
