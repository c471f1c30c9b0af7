// `make demo`: a short tour of vitals for a new user (a few seconds).
#include <unistd.h>
#include <vitals/kernels/kernels.hpp>
#include <vitals/vitals.hpp>

#include <iostream>
#include <memory>
#include <string>

namespace {

void heading(const std::string& text) { std::cout << "\n=== " << text << " ===\n\n"; }

namespace k = vitals::kernels;

vitals::Timer matmul_timer(std::int64_t n, k::DType dtype) {
    auto x = std::make_shared<k::Tensor>(k::Tensor::randn({n, n}, dtype, k::Device::cpu, 1));
    auto y = std::make_shared<k::Tensor>(k::Tensor::randn({n, n}, dtype, k::Device::cpu, 2));
    return vitals::Timer({
        .stmt = vitals::Code([x, y] { vitals::do_not_optimize(k::matmul(*x, *y)); }, "matmul(x, y)"),
        .label = "x @ y",
        .sub_label = std::to_string(n) + "x" + std::to_string(n),
        .description = std::string("cpu ") + std::string(k::dtype_short_name(dtype)),
    });
}

}  // namespace

int main() {
    heading("1. Timer.blocked_autorange: the tutorial's x @ y on 128x128 float matrices");
    std::cout << "vitals::Timer timer({.stmt = [x, y] { vitals::do_not_optimize(matmul(*x, *y)); }, .label = \"x @ y\", ...});\n"
                 "std::cout << timer.blocked_autorange({.min_run_time = 0.5});\n\n";
    std::cout << matmul_timer(128, k::DType::f32).blocked_autorange({.min_run_time = 0.5}) << "\n";

    heading("2. Compare: x @ y at three sizes, float against double");
    std::vector<vitals::Measurement> results;
    for (std::int64_t n : {64, 128, 256}) {
        for (k::DType dtype : {k::DType::f32, k::DType::f64}) {
            results.push_back(matmul_timer(n, dtype).blocked_autorange({.min_run_time = 0.1}));
        }
    }
    vitals::Compare compare(results);
    compare.trim_significant_figures();
    if (isatty(STDOUT_FILENO)) compare.colorize();
    std::cout << compare;

    heading("3. Timer.adaptive_autorange: stop once IQR/median < 5%");
    std::cout << matmul_timer(64, k::DType::f32).adaptive_autorange({.threshold = 0.05, .max_run_time = 2.0}) << "\n";

    heading("Next");
    std::cout << "build/bin/vitals list                       # the built-in cases\n"
                 "build/bin/vitals timeit matmul/128x128/cpu-f32\n"
                 "build/bin/vitals run --filter mask_indices --json results.json\n";
}
