// Whether CUDA work can run here. Host-only: never includes CUDA headers.
#pragma once

#include <string>

namespace vitals {

// True when this program has vitals' CUDA parts: vitals was built with them
// (VITALS_CUDA) and the program links vitals::cuda (vitals::kernels and vitals::vitals
// do).
bool built_with_cuda();
// Empty when a CUDA device is usable; otherwise why not (no CUDA build, vitals::cuda not
// linked, no driver, no device), phrased for a "skipped: <reason>" line.
std::string cuda_unavailable_reason();

}  // namespace vitals
