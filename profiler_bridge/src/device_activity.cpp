// The profiler's device side: CUPTI and NVTX through vitals::cuda's hooks, or nothing
// (with the reason) in a program without them.
#include "device_activity.hpp"

#include "vitals/cuda_hooks.hpp"
#include "vitals/cuda_support.hpp"
#include "vitals/profiler/record_function.hpp"

namespace vitals::profiler::detail {
namespace device_activity {
namespace {

// Constant-initialised: valid before any static initialiser runs.
Hooks g_hooks;

}  // namespace

void install_hooks(const Hooks& hooks) { g_hooks = hooks; }

// Why there is no device activity is said as the Timer and the commands say why a CUDA
// case cannot run (cuda_unavailable_reason), whatever part found it.
std::string start() {
    if (g_hooks.start == nullptr) {
        const std::string reason = cuda_unavailable_reason();
        return reason.empty() ? "this program was not linked with vitals::cuda's profiler hooks" : reason;
    }
    return g_hooks.start();
}

std::vector<DeviceEvent> stop() { return g_hooks.stop != nullptr ? g_hooks.stop() : std::vector<DeviceEvent>{}; }

void synchronize() {
    if (g_hooks.synchronize != nullptr) g_hooks.synchronize();
}

std::vector<DeviceEvent> in_window(std::vector<DeviceEvent> events, std::int64_t start_ns, std::int64_t end_ns) {
    std::erase_if(events, [&](const DeviceEvent& e) {
        return e.start_ns < start_ns || e.end_ns > end_ns || e.end_ns < e.start_ns;
    });
    return events;
}

void push_external_id(std::uint64_t id) {
    if (g_hooks.push_external_id != nullptr) g_hooks.push_external_id(id);
}

void pop_external_id() {
    if (g_hooks.pop_external_id != nullptr) g_hooks.pop_external_id();
}

}  // namespace device_activity

void nvtx_push(const char* name) {
    if (device_activity::g_hooks.nvtx_push != nullptr) device_activity::g_hooks.nvtx_push(name);
}

void nvtx_pop() {
    if (device_activity::g_hooks.nvtx_pop != nullptr) device_activity::g_hooks.nvtx_pop();
}

}  // namespace vitals::profiler::detail
