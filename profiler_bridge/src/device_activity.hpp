// CUDA activity for the profiler (CUPTI) and NVTX ranges, behind a host-only interface.
// Internal. vitals::cuda installs the hooks (vitals/profiler/plug_points.hpp); without
// them every call is a no-op and start() says why it cannot record.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "vitals/profiler/plug_points.hpp"
#include "vitals/profiler/trace.hpp"

namespace vitals::profiler::detail::device_activity {

// Subscribes to CUPTI and enables kernel, memcpy, memset, runtime and external
// correlation records. Returns "" on success, otherwise why device activity cannot be
// recorded here (no CUDA parts, no device, another tool holds CUPTI).
std::string start();
// Waits for the device's work (nothing without a usable device), so that a window's end
// taken after it covers the work launched inside it.
void synchronize();
// Flushes and disables CUPTI; returns the device events recorded since start(), with
// timestamps on the steady clock (nanoseconds) and host ops' external ids resolved.
std::vector<DeviceEvent> stop();

// The events that lie within the recorded window [start_ns, end_ns] (steady clock):
// CUPTI records from the warm-up steps before the window and anything after it are
// dropped, and so are records with missing (zero) timestamps, which would land far
// outside. Order is kept.
std::vector<DeviceEvent> in_window(std::vector<DeviceEvent> events, std::int64_t start_ns, std::int64_t end_ns);

// Tags device work launched until the matching pop with a host op's external id.
void push_external_id(std::uint64_t id);
void pop_external_id();

}  // namespace vitals::profiler::detail::device_activity
