// The profiler's device side in a build without CUDA.
#include "device_activity.hpp"

namespace vitals::profiler::detail::device_activity {

std::string start() { return "vitals was built without CUDA"; }
std::vector<DeviceEvent> stop() { return {}; }
void push_external_id(std::uint64_t) {}
void pop_external_id() {}

}  // namespace vitals::profiler::detail::device_activity
