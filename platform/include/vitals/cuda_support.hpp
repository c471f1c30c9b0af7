// Whether CUDA work can run here. Host-only: never includes CUDA headers.
#pragma once

#include <string>

namespace vitals {

// True when vitals was compiled with its CUDA parts (VITALS_CUDA).
bool built_with_cuda();
// Empty when a CUDA device is usable; otherwise why not (no CUDA build, no driver, no
// device), phrased for a "skipped: <reason>" line.
std::string cuda_unavailable_reason();

}  // namespace vitals
