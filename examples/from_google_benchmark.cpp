#include <vitals/vitals.hpp>

#include <memory>
#include <numeric>
#include <vector>

// Google Benchmark's BM_Sum with ->Arg(1 << 10)->Arg(1 << 16): one case per value of n.
VITALS_CASE_FAMILY(sum_family) {
    return {.name = "sum",
            .axes = {{"n", {"1K", "64K"}}},
            .make_timer = [](const vitals::AxisValues& at) {
                const auto n = static_cast<std::size_t>(at.integer("n"));
                auto v = std::make_shared<std::vector<float>>(n, 1.0f);  // the state lives in the closure
                return vitals::Timer({.stmt = [v] { vitals::do_not_optimize(std::accumulate(v->begin(), v->end(), 0.0f)); },
                                      .label = "sum",
                                      .sub_label = at["n"],
                                      .bytes_per_call = static_cast<double>(n * sizeof(float)),
                                      .items_per_call = static_cast<double>(n)});
            }};
}

VITALS_MAIN()
