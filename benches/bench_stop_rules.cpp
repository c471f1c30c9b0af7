// Time to a stable answer: the wall time, blocks and accuracy of each stop rule on the
// 128x128 f32 matmul (the kernel set's matmul, one thread).
//
//   precision 1%   adaptive_autorange({.precision = 0.01}): stops once the median's 95%
//                  interval is within +/-1% (goal: the median within 1% of a long run's
//                  in under 50 ms of wall time)
//   blocked 0.2 s  blocked_autorange({.min_run_time = 0.2}), the reference's default
//   adaptive 10%   adaptive_autorange(), the reference's threshold rule
//
// Each rule runs `--repeats` times (default 10), alternating, each time on a fresh Timer
// whose long run (blocked_autorange({.min_run_time = 1}) right after) is the reference:
// fresh tensors can sit differently in memory and run a few percent apart, which is the
// process-to-process spread `vitals run --processes` is for, not a stop rule's error.
// Prints, per rule, the median and largest wall time, the median block count, and how
// often the rule's median fell within 1% of its own long run's.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>
#include <vitals/kernels/kernels.hpp>
#include <vitals/vitals.hpp>

namespace k = vitals::kernels;

namespace {

struct Outcome {
    double wall, median, reference;
    std::size_t blocks;
};

vitals::Timer make_timer() {
    auto a = std::make_shared<k::Tensor>(k::Tensor::randn({128, 128}, k::DType::f32, k::Device::cpu, 1));
    auto b = std::make_shared<k::Tensor>(k::Tensor::randn({128, 128}, k::DType::f32, k::Device::cpu, 2));
    return vitals::Timer({.stmt = [a, b] { vitals::do_not_optimize(k::matmul(*a, *b)); },
                          .label = "matmul",
                          .sub_label = "128x128"});
}

Outcome run_once(const std::function<vitals::Measurement(vitals::Timer&)>& rule) {
    vitals::Timer timer = make_timer();
    const auto start = std::chrono::steady_clock::now();
    const vitals::Measurement m = rule(timer);
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const double reference = timer.blocked_autorange({.min_run_time = 1}).median();
    return {wall, m.median(), reference, m.raw_times().size()};
}

double median_of(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? NAN : (v[(v.size() - 1) / 2] + v[v.size() / 2]) / 2;
}

}  // namespace

int main(int argc, char** argv) {
    int repeats = 10;
    for (int i = 1; i + 1 < argc; ++i) {
        if (std::strcmp(argv[i], "--repeats") == 0) repeats = std::max(1, std::atoi(argv[i + 1]));
    }
    struct Rule {
        const char* name;
        std::function<vitals::Measurement(vitals::Timer&)> run;
        std::vector<Outcome> outcomes;
    };
    std::vector<Rule> rules = {
        {"precision 1%", [](vitals::Timer& t) { return t.adaptive_autorange({.precision = 0.01}); }, {}},
        {"blocked 0.2 s", [](vitals::Timer& t) { return t.blocked_autorange({.min_run_time = 0.2}); }, {}},
        {"adaptive 10%", [](vitals::Timer& t) { return t.adaptive_autorange(); }, {}},
    };
    for (int r = 0; r < repeats; ++r) {
        std::fprintf(stderr, "\r[%d/%d]", r + 1, repeats);
        for (Rule& rule : rules) rule.outcomes.push_back(run_once(rule.run));
    }
    std::fprintf(stderr, "\n");
    std::printf("matmul 128x128 f32 (kernel set, one thread); %d runs of each rule, each against its Timer's 1 s run\n\n",
                repeats);
    std::printf("%-14s  %14s  %12s  %13s  %16s\n", "rule", "wall (median)", "wall (max)", "blocks (med.)",
                "within 1% of ref");
    for (const Rule& rule : rules) {
        std::vector<double> walls, blocks;
        int within = 0;
        for (const Outcome& o : rule.outcomes) {
            walls.push_back(o.wall);
            blocks.push_back(static_cast<double>(o.blocks));
            within += std::fabs(o.median / o.reference - 1) <= 0.01 ? 1 : 0;
        }
        std::printf("%-14s  %11.1f ms  %9.1f ms  %13.0f  %10d of %d\n", rule.name, median_of(walls) * 1e3,
                    *std::max_element(walls.begin(), walls.end()) * 1e3, median_of(blocks), within, repeats);
    }
}
