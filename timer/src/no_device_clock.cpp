// The timer's device side in a build without CUDA: it says so instead of timing.
#include <stdexcept>
#include <string>

#include "device_clock.hpp"

namespace vitals {

namespace detail {

double time_block_on_stream(CUstream_st*, const Code&, std::int64_t) {
    throw std::runtime_error(
        "Timer: .cuda_stream was given but vitals was built without CUDA; rebuild with -DVITALS_CUDA=ON");
}

void synchronize_stream(CUstream_st*) {}

}  // namespace detail
}  // namespace vitals
