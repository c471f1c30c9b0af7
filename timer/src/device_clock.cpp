// The timer's device side: CUDA-event timing through vitals::cuda's hooks. A program
// without them says why instead of timing.
#include "device_clock.hpp"

#include <stdexcept>
#include <string>

#include "vitals/cuda_hooks.hpp"

namespace vitals::detail {
namespace {

struct Block {
    const Code* stmt;
    std::int64_t number;
};

[[noreturn]] void no_cuda_parts() {
    if (!cuda_parts_built()) {
        throw std::runtime_error(
            "Timer: .cuda_stream was given but vitals was built without CUDA; rebuild with -DVITALS_CUDA=ON");
    }
    throw std::runtime_error(
        "Timer: .cuda_stream was given but this program was not linked with vitals::cuda; link vitals::cuda "
        "(find_package(vitals COMPONENTS timer cuda)) to time device work");
}

}  // namespace

double time_block_on_stream(CUstream_st* stream, const Code& stmt, std::int64_t number) {
    const CudaHooks* hooks = cuda_hooks();
    if (hooks == nullptr || hooks->time_on_stream == nullptr) no_cuda_parts();
    Block block{&stmt, number};
    return hooks->time_on_stream(
        stream, [](void* context) {
            const Block& b = *static_cast<const Block*>(context);
            b.stmt->run(b.number);
        },
        &block);
}

void synchronize_stream(CUstream_st* stream) {
    const CudaHooks* hooks = cuda_hooks();
    if (hooks != nullptr && hooks->synchronize_stream != nullptr) hooks->synchronize_stream(stream);
}

}  // namespace vitals::detail
