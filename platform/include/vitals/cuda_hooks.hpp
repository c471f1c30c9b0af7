// The CUDA parts of a program, behind plain function pointers. vitals::cuda installs
// them before main; without it (a CPU-only program, or a build without CUDA) the parts
// that could use a device say why they cannot. Host-only: never includes CUDA headers.
#pragma once

#include <string>

struct CUstream_st;

namespace vitals {

struct CudaHooks {
    // "" when a CUDA device is usable, otherwise why not.
    std::string (*unavailable_reason)() = nullptr;
    // Records an event on `stream`, calls run(context), records a second event, waits
    // for it; the seconds between the two events. Throws std::runtime_error on failure.
    double (*time_on_stream)(CUstream_st* stream, void (*run)(void* context), void* context) = nullptr;
    // Waits for the work queued on `stream`.
    void (*synchronize_stream)(CUstream_st* stream) = nullptr;
};

// Installs the hooks for the whole process (vitals::cuda does, from a static initialiser).
void install_cuda_hooks(const CudaHooks& hooks);
// The installed hooks, or nullptr when this program has no CUDA parts.
const CudaHooks* cuda_hooks();
// Whether vitals was built with its CUDA parts (vitals::cuda exists), linked here or not.
bool cuda_parts_built();
// Why this program has no CUDA parts ("" when it has them): vitals was built without
// CUDA, or the program does not link vitals::cuda.
std::string cuda_parts_missing_reason();

}  // namespace vitals
