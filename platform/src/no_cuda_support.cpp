// A build without CUDA: no device is ever usable, and the reason says why.
#include "vitals/cuda_support.hpp"

namespace vitals {

bool built_with_cuda() { return false; }

std::string cuda_unavailable_reason() { return "vitals was built without CUDA (VITALS_CUDA=OFF or no CUDA toolkit found)"; }

}  // namespace vitals
