// NVTX ranges for recorded scopes, so Nsight Systems shows vitals' labels.
#include <nvtx3/nvToolsExt.h>

#include "parts.hpp"

namespace vitals::cuda_parts {

void nvtx_push(const char* name) { nvtxRangePushA(name); }
void nvtx_pop() { nvtxRangePop(); }

}  // namespace vitals::cuda_parts
