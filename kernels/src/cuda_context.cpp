#include "vitals/kernels/cuda_context.hpp"

#include "cuda_backend.hpp"
#include "vitals/cuda_support.hpp"

namespace vitals::kernels {
namespace {
thread_local CUstream_st* t_current_stream = nullptr;
}

CUstream_st* current_stream() { return t_current_stream; }
void set_current_stream(CUstream_st* stream) { t_current_stream = stream; }

void synchronize() {
    if (cuda_backend::built() && vitals::cuda_unavailable_reason().empty()) cuda_backend::synchronize(t_current_stream);
}

}  // namespace vitals::kernels
