// Results files of a chosen size, written by the results writer itself, for timing the
// commands that read them (scripts/bench-results-io.sh):
//
//   vitals_make_results_files OUT.json CASES BLOCKS SCALE [SEED [PREFIX]]
//
// CASES cases (named PREFIX + "family<k>/case<n>") of BLOCKS blocks each (block times drawn around 1 to 2 us, 1% spread, times
// SCALE), with labels and the work of a call, as `vitals run` writes them.
#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "vitals/results.hpp"

int main(int argc, char** argv) {
    if (argc < 5) {
        std::fprintf(stderr, "usage: %s OUT.json CASES BLOCKS SCALE [SEED [PREFIX]]\n", argv[0]);
        return 2;
    }
    const std::string out = argv[1];
    const int cases = std::atoi(argv[2]);
    const int blocks = std::atoi(argv[3]);
    const double scale = std::atof(argv[4]);
    std::mt19937_64 rng(argc > 5 ? std::strtoull(argv[5], nullptr, 10) : 20261205);
    std::normal_distribution<double> spread(1.0, 0.01);
    const std::string prefix = argc > 6 ? argv[6] : "";
    std::vector<vitals::CaseResult> results;
    results.reserve(static_cast<std::size_t>(cases));
    for (int c = 0; c < cases; ++c) {
        const double base = 1e-6 * (1.0 + static_cast<double>(c % 1000) / 1000.0) * scale;
        std::vector<double> times;  // per block, of 1000 calls
        for (int b = 0; b < blocks; ++b) times.push_back(1000 * base * spread(rng));
        vitals::TaskSpec task{"", "", "", fmt::format("family{}", c / 10), fmt::format("case{}", c), "synthetic", "",
                              1, vitals::WorkPerCall{4096.0, 0.0, 0.0, 4096.0, false}};
        results.push_back({fmt::format("{}family{}/case{}", prefix, c / 10, c), vitals::Measurement(1000, std::move(times), std::move(task)), "", ""});
    }
    std::ofstream(out, std::ios::binary) << vitals::results_to_json(results, "vitals_make_results_files");
    return 0;
}
