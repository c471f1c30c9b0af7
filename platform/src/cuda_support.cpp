// Whether CUDA work can run here: asked of vitals::cuda's hooks when the program has
// them, otherwise answered with why it has none.
#include "vitals/cuda_support.hpp"

#include "vitals/cuda_hooks.hpp"

#ifndef VITALS_BUILT_WITH_CUDA
#define VITALS_BUILT_WITH_CUDA 0
#endif

namespace vitals {
namespace {

// Constant-initialised: valid before any static initialiser runs.
CudaHooks g_hooks;
bool g_installed = false;

}  // namespace

void install_cuda_hooks(const CudaHooks& hooks) {
    g_hooks = hooks;
    g_installed = true;
}

const CudaHooks* cuda_hooks() { return g_installed ? &g_hooks : nullptr; }

bool cuda_parts_built() { return VITALS_BUILT_WITH_CUDA != 0; }

std::string cuda_parts_missing_reason() {
    if (g_installed) return "";
    if (!cuda_parts_built()) return "vitals was built without CUDA (VITALS_CUDA=OFF or no CUDA toolkit found)";
    return "this program was not linked with vitals::cuda (vitals was built with CUDA; link vitals::cuda, or "
           "vitals::kernels, to use a device)";
}

bool built_with_cuda() { return g_installed; }

std::string cuda_unavailable_reason() {
    if (!g_installed || g_hooks.unavailable_reason == nullptr) return cuda_parts_missing_reason();
    return g_hooks.unavailable_reason();
}

}  // namespace vitals
