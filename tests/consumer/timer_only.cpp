// Times CPU code with the Timer alone, in the README's style. Built against vitals::timer
// (and vitals::cuda with CONSUMER_WITH_CUDA).
#include <vitals/timer.hpp>

#include <cmath>
#include <iostream>
#include <stdexcept>

#if CONSUMER_WITH_CUDA
#include <vitals/cuda_support.hpp>
#endif

int main() {
    vitals::Timer timer({
        .stmt = VITALS_CODE(vitals::do_not_optimize(std::sqrt(2.0))),
        .label = "sqrt",
        .sub_label = "scalar",
    });
    std::cout << timer.blocked_autorange({.min_run_time = 0.05}) << '\n';
#if CONSUMER_WITH_CUDA
    std::cout << "built_with_cuda: " << vitals::built_with_cuda() << '\n';
    std::cout << "cuda_unavailable_reason: " << vitals::cuda_unavailable_reason() << '\n';
#endif
    // Device timing: CUDA's answer with vitals::cuda, otherwise why it cannot.
    try {
        vitals::Timer device({.stmt = [] {}, .cuda_stream = nullptr});
        const double seconds = device.timeit(10).median();
        std::cout << "device: " << seconds << " s\n";
    } catch (const std::runtime_error& e) {
        std::cout << "device: " << e.what() << '\n';
    }
}
