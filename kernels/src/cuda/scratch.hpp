// Temporary device memory for one call (CUB's temporary storage, counts), freed on the
// same stream when the call returns. Internal to the CUDA backend.
#pragma once

#include <memory>

#include "cuda_backend.hpp"

namespace vitals::kernels::cuda_backend {

struct StreamFree {
    Stream stream;
    void operator()(void* address) const noexcept { deallocate(address, stream); }
};
using StreamBuffer = std::unique_ptr<void, StreamFree>;

}  // namespace vitals::kernels::cuda_backend
