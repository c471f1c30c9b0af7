// The README's profiler example: the tutorial's forward pass, profiled.
#include <vitals/kernels/kernels.hpp>
#include <vitals/profiler/profile.hpp>

#include <iostream>

int main() {
    vitals::kernels::Mlp model;  // Linear(512, 1024), ReLU, Linear(1024, 512)
    const auto x = vitals::kernels::Tensor::randn({32, 512}, vitals::kernels::DType::f32);

    vitals::profiler::Profile prof({.record_shapes = true});
    prof.start();
    {
        VITALS_RECORD_FUNCTION("forward");
        model.forward(x);
    }
    prof.stop();
    std::cout << prof.key_averages().table({.sort_by = "cpu_time_total", .row_limit = 8});
    prof.export_chrome_trace("trace.json");
}
