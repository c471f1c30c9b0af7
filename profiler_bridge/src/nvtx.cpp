// NVTX ranges for recorded scopes, so Nsight Systems shows vitals' labels.
#include <nvtx3/nvToolsExt.h>

#include "vitals/profiler/record_function.hpp"

namespace vitals::profiler::detail {

void nvtx_push(const char* name) { nvtxRangePushA(name); }
void nvtx_pop() { nvtxRangePop(); }

}  // namespace vitals::profiler::detail
