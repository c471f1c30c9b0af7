// The cases built into the `vitals` executable: the tutorial's x @ y, in float and
// double, at three sizes (one Compare table: rows are sizes, columns are dtypes).
#include <fmt/format.h>

#include <memory>

#include "vitals/case.hpp"
#include "vitals/kernels/eigen_matmul.hpp"

namespace {

template <class T>
vitals::Case matmul_case(int n, const char* dtype) {
    return vitals::Case{
        fmt::format("matmul/{}x{}/cpu-{}", n, n, dtype),
        [n, dtype] {
            auto state = std::make_shared<vitals::kernels::EigenMatmul<T>>(n);
            return vitals::Timer({
                .stmt = vitals::Code([state] { state->run(); }, "z.noalias() = x * y"),
                .label = "x @ y",
                .sub_label = fmt::format("{}x{}", n, n),
                .description = fmt::format("eigen {}", dtype),
            });
        },
    };
}

VITALS_CASES(tutorial_matmul_cases) {
    std::vector<vitals::Case> cases;
    for (int n : {64, 128, 256}) {
        cases.push_back(matmul_case<float>(n, "f32"));
        cases.push_back(matmul_case<double>(n, "f64"));
    }
    return cases;
}

}  // namespace
