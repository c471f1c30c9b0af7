// How often the change-point detector is right, on series built from real block times
// (scripts/check-change-points.sh makes them with the spin bench): each commit's value is
// the median of 10 blocks drawn with replacement, as a run's median is; a changed commit
// scales its blocks (by 1.03 after a step, by 1 + 0.001 i in a drift), so the truth is
// known exactly. (Two runs of the spin bench at scales 1.00 and 1.03 differ by whatever
// the machine did between them as well.) Statistical and slow: a program run by a script,
// not a unit test.
//
//   vitals_change_point_rates BLOCKS.json [SERIES]
//
// False change points per 1,000 commits of an unchanged case (goal: at most 1); a 3% step
// at commit 100 of 200 found within 5 commits (goal: at least 95% of series); a drift of
// 0.1% a commit over 200 commits: the largest step reported (goal: no 3%-sized step).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "vitals/change_points.hpp"
#include "vitals/results.hpp"
#include "vitals/stats.hpp"

namespace {

std::vector<double> blocks_of(const std::string& path) {
    const vitals::ResultsFile file = vitals::read_results_file(path);
    for (const vitals::CaseSamples& c : file.cases) {
        if (c.seconds.size() >= 50) return c.seconds;
    }
    throw std::runtime_error(path + ": no case with 50 blocks or more");
}

class Commits {
public:
    Commits(std::vector<double> blocks, unsigned seed) : blocks_(std::move(blocks)), rng_(seed) {}
    // One commit: the median of kBlocks blocks drawn with replacement, times `scale`.
    double next(double scale = 1.0) {
        std::uniform_int_distribution<std::size_t> pick(0, blocks_.size() - 1);
        std::vector<double> drawn;
        for (int i = 0; i < kBlocks; ++i) drawn.push_back(blocks_[pick(rng_)]);
        return vitals::stats::median(drawn) * scale;
    }
    static constexpr int kBlocks = 10;

private:
    std::vector<double> blocks_;
    std::mt19937_64 rng_;
};

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        fmt::print(stderr, "usage: {} BLOCKS.json [SERIES]\n", argv[0]);
        return 2;
    }
    const int series = argc > 2 ? std::atoi(argv[2]) : 200;
    const std::vector<double> blocks = blocks_of(argv[1]);
    Commits commits(blocks, 20261204);
    const vitals::stats::ChangePointOptions options{};
    constexpr std::size_t kLength = 200, kStepAt = 100;

    std::size_t false_points = 0, unchanged_commits = 0, found_near = 0, largest_drift_series = 0;
    double largest_drift_step = 0;
    for (int s = 0; s < series; ++s) {
        std::vector<double> flat, step, drift;
        for (std::size_t i = 0; i < kLength; ++i) {
            flat.push_back(commits.next());
            step.push_back(commits.next(i >= kStepAt ? 1.03 : 1.0));
            drift.push_back(commits.next(1.0 + 0.001 * static_cast<double>(i)));
        }
        false_points += vitals::stats::detect_change_points(flat, options).size();
        unchanged_commits += kLength;
        const auto found = vitals::stats::detect_change_points(step, options);
        found_near += std::any_of(found.begin(), found.end(), [&](const vitals::stats::ChangePoint& c) {
            return c.step > 0 && std::abs(static_cast<long>(c.index) - static_cast<long>(kStepAt)) <= 5;
        });
        double largest = 0;
        for (const auto& c : vitals::stats::detect_change_points(drift, options)) largest = std::max(largest, std::fabs(c.step));
        largest_drift_step = std::max(largest_drift_step, largest);
        largest_drift_series += largest >= 0.02;
    }
    std::vector<double> sorted = blocks;
    std::sort(sorted.begin(), sorted.end());
    const double iqr = (sorted[sorted.size() * 3 / 4] - sorted[sorted.size() / 4]) / vitals::stats::median(blocks);
    fmt::print("series of {} commits, each the median of {} of {} blocks (IQR {:.1f}% of their median); p_value {}, "
               "window {}, min_segment {}\n",
               kLength, Commits::kBlocks, blocks.size(), 100 * iqr, options.p_value, options.window, options.min_segment);
    fmt::print("unchanged: {} false change points in {} commits: {:.2f} per 1,000 commits (goal: at most 1)\n", false_points,
               unchanged_commits, 1000.0 * static_cast<double>(false_points) / static_cast<double>(unchanged_commits));
    fmt::print("a step at commit {}: found within 5 commits in {} of {} series ({:.1f}%; goal: at least 95%)\n", kStepAt,
               found_near, series, 100.0 * static_cast<double>(found_near) / series);
    fmt::print("a drift of 0.1% a commit: the largest step reported {:.2f}%; series with a step of 2% or more: {} of {}\n",
               100 * largest_drift_step, largest_drift_series, series);
}
