// `make demo`: a short tour of vitals for a new user (a few seconds).
#include <unistd.h>
#include <vitals/kernels/eigen_matmul.hpp>
#include <vitals/vitals.hpp>

#include <iostream>
#include <memory>
#include <string>

namespace {

void heading(const std::string& text) { std::cout << "\n=== " << text << " ===\n\n"; }

template <class T>
vitals::Measurement time_matmul(int n, const char* dtype, double min_run_time) {
    auto state = std::make_shared<vitals::kernels::EigenMatmul<T>>(n);
    vitals::Timer timer({
        .stmt = vitals::Code([state] { state->run(); }, "z.noalias() = x * y"),
        .label = "x @ y",
        .sub_label = std::to_string(n) + "x" + std::to_string(n),
        .description = std::string("eigen ") + dtype,
    });
    return timer.blocked_autorange({.min_run_time = min_run_time});
}

}  // namespace

int main() {
    heading("1. Timer.blocked_autorange: the tutorial's x @ y on 128x128 float matrices");
    std::cout << "vitals::Timer timer({.stmt = VITALS_CODE(z.noalias() = x * y), .label = \"x @ y\", ...});\n"
                 "std::cout << timer.blocked_autorange({.min_run_time = 0.5});\n\n";
    std::cout << time_matmul<float>(128, "f32", 0.5) << "\n";

    heading("2. Compare: x @ y at three sizes, float against double");
    std::vector<vitals::Measurement> results;
    for (int n : {64, 128, 256}) {
        results.push_back(time_matmul<float>(n, "f32", 0.1));
        results.push_back(time_matmul<double>(n, "f64", 0.1));
    }
    vitals::Compare compare(results);
    compare.trim_significant_figures();
    if (isatty(STDOUT_FILENO)) compare.colorize();
    std::cout << compare;

    heading("3. Timer.adaptive_autorange: stop once IQR/median < 5%");
    auto state = std::make_shared<vitals::kernels::EigenMatmul<float>>(64);
    vitals::Timer adaptive({.stmt = vitals::Code([state] { state->run(); }, "z.noalias() = x * y"),
                            .label = "x @ y", .sub_label = "64x64", .description = "eigen f32"});
    std::cout << adaptive.adaptive_autorange({.threshold = 0.05, .max_run_time = 2.0}) << "\n";

    heading("Next");
    std::cout << "build/bin/vitals list                       # the built-in cases\n"
                 "build/bin/vitals timeit matmul/128x128/cpu-f32\n"
                 "build/bin/vitals run --filter f32 --json results.json\n";
}
