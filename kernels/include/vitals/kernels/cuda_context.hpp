// The CUDA stream kernel-set operations run on. Host-only: no CUDA headers.
// Whether a device is usable at all: vitals::cuda_unavailable_reason().
#pragma once

struct CUstream_st;  // cudaStream_t

namespace vitals::kernels {

// The calling thread's stream for device operations; nullptr is CUDA's legacy default
// stream. Give it to a Timer as `.cuda_stream` to time device work on it.
CUstream_st* current_stream();
void set_current_stream(CUstream_st* stream);

// Waits until the current stream's work is done (no-op without CUDA).
void synchronize();

}  // namespace vitals::kernels
