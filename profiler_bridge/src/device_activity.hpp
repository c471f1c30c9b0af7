// CUDA activity for the profiler (CUPTI), behind a host-only interface. Internal.
// In a build without CUDA every call is a no-op and start() says why it cannot record.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "vitals/profiler/trace.hpp"

namespace vitals::profiler::detail::device_activity {

// Subscribes to CUPTI and enables kernel, memcpy, memset, runtime and external
// correlation records. Returns "" on success, otherwise why device activity cannot be
// recorded here (no CUDA build, no device, another tool holds CUPTI).
std::string start();
// Flushes and disables CUPTI; returns the device events recorded since start(), with
// timestamps on the steady clock (nanoseconds) and host ops' external ids resolved.
std::vector<DeviceEvent> stop();

// Tags device work launched until the matching pop with a host op's external id.
void push_external_id(std::uint64_t id);
void pop_external_id();

}  // namespace vitals::profiler::detail::device_activity
