// Every plug point of vitals: where a lower part calls code that a part above it (or a
// program) provides, so that the lower part links none of it. Internal: for vitals's own
// parts and tests, not for programs.
//
//   CudaHooks (platform, vitals/cuda_hooks.hpp, included here): whether a device is
//       usable, and CUDA-event timing for the Timer. Installed by vitals::cuda.
//   device_activity::Hooks (the profiler, below): CUPTI activity and NVTX ranges.
//       Installed by vitals::cuda, with CudaHooks, before main (cuda/src/hooks.cpp).
//   ThreadCountHook (platform, vitals/threads.hpp): a thread pool's intra-op count; the
//       kernel set registers Eigen's.
//   machine::DeviceProbe (machine, vitals/machine.hpp): the device half of `vitals
//       machine`; the command registers the kernel set's CUDA one.
//
// Why this shape: a plug point is declared where the part that calls it can see it.
// CudaHooks is called from platform (and the timer), and platform sits below the
// profiler, so it stays declared there and is included here. The profiler's table is
// declared here, in a public header of the part it plugs into, so vitals::cuda installs
// both through this one header and no private include path. ThreadCountHook and
// DeviceProbe stay with their parts too: platform's threads.cpp and machine call them,
// and machine sits beside the profiler, not below it, so declaring them here would make
// those parts depend on the profiler. The kernel set and the command register them
// through public functions; vitals::cuda does not touch them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "vitals/cuda_hooks.hpp"
#include "vitals/profiler/trace.hpp"

namespace vitals::profiler::detail::device_activity {

// The CUDA side of the profiler's device activity (device_activity.cpp) and of
// detail::nvtx_push/nvtx_pop. A null hook is a no-op.
struct Hooks {
    std::string (*start)() = nullptr;
    std::vector<DeviceEvent> (*stop)() = nullptr;
    void (*synchronize)() = nullptr;
    void (*push_external_id)(std::uint64_t id) = nullptr;
    void (*pop_external_id)() = nullptr;
    void (*nvtx_push)(const char* name) = nullptr;
    void (*nvtx_pop)() = nullptr;
};
// Installs the hooks for the whole process (vitals::cuda does, before main).
void install_hooks(const Hooks& hooks);

}  // namespace vitals::profiler::detail::device_activity
