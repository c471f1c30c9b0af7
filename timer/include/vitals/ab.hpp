// Interleaved A/B: several Timers measured in alternating rounds, each against the first.
//
//   vitals::Timer before({.stmt = [&] { old_f(); }}), after({.stmt = [&] { new_f(); }});
//   const vitals::AbResult r = vitals::ab({before, after}, {.precision = 0.01, .max_run_time = 10});
//   std::cout << r.alternatives[1].ratio << '\n';  // after / before, per call
//
// Each alternative first gets a block size of its own (blocks of about .block_time) and
// one untimed block. Then every round times one block of each, in forward order on even
// rounds and reverse order on odd ones (A B, B A, A B, ... : ABBA for two), so a machine
// that speeds up or slows down between rounds, as a shared VM does, weighs on all
// alternatives alike. Each round gives one ratio per alternative, its per-call time over
// the first alternative's in the same round; the result is the median of those ratios
// with its distribution-free 95% interval (order statistics), the sign test's p-value,
// and a verdict under the same alpha and noise floor as `vitals compare`.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "vitals/significance.hpp"
#include "vitals/timer.hpp"

namespace vitals {

struct AbOptions {
    // Stop once every ratio's 95% interval lies within +/- precision of it (0.01: 1%).
    double precision = 0.01;
    // Wall seconds for the whole comparison (sizing included); honoured to within one round.
    double max_run_time = 10.0;
    // At least this many wall seconds of rounds before the precision may stop it.
    double min_run_time = 0.1;
    // Each block lasts about this long (one call at least).
    double block_time = 0.01;
    // Neither the time limit nor the precision stops the rounds before this many: a verdict
    // needs 6 rounds for an interval and a sign-test p below 0.05, whatever the speed of the
    // machine or the build (the time limit gives a slow one fewer).
    std::size_t min_rounds = 1;
    // The verdict rules of `vitals compare`.
    double alpha = 0.05;
    double noise_floor = 0.01;
    // Called after every round with the rounds so far; returning false stops the
    // comparison there (an interrupted run keeps what was measured).
    std::function<bool(std::size_t rounds, double elapsed_seconds)> on_round{};
};

// One round: per alternative (in the order given to ab), its block's wall seconds.
struct AbRound {
    std::vector<double> block_seconds;
    bool reversed = false;  // timed last to first
};

struct AbAlternative {
    std::string name;  // the Timer's title; the runner's ab gives the case's name
    TaskSpec task;
    std::int64_t number_per_block = 1;
    double median = 0;  // seconds per call: the median of its blocks
    // Its per-call time over the first alternative's, round by round: their median and
    // its 95% interval (none with fewer than 6 rounds). 1 for the first alternative.
    double ratio = 1;
    std::optional<std::pair<double, double>> ratio_interval;
    double p_value = 1;  // sign test of the rounds' ratios against 1
    stats::Verdict verdict = stats::Verdict::same;
};

// failed: an alternative's statement or setup threw (AbFailed).
enum class AbStop { precision, max_run_time, interrupted, failed };
std::string_view ab_stop_name(AbStop stop);

struct AbResult {
    std::vector<AbAlternative> alternatives;
    std::vector<AbRound> rounds;
    double wall_seconds = 0;  // sizing, warm-up and rounds
    AbStop stopped_by = AbStop::max_run_time;
    double alpha = 0.05, noise_floor = 0.01, precision = 0.01;
    // With AbStop::failed: the alternative that threw (its index) and what it threw.
    struct Failure {
        std::size_t alternative = 0;
        std::string message;
    };
    std::optional<Failure> failure;
};

// What ab throws when an alternative's statement or setup throws: its what() names the
// alternative and the message; `partial` holds the rounds measured before, stopped_by
// AbStop::failed, every verdict untested (a comparison cut short gates nothing).
class AbFailed : public std::runtime_error {
public:
    AbFailed(AbResult partial, const std::string& what) : std::runtime_error(what), partial(std::move(partial)) {}
    AbResult partial;
};

// Measures the Timers interleaved (see above). Throws std::invalid_argument for fewer
// than two Timers, one Timer given twice, or options out of range, and AbFailed when a
// statement or setup throws.
AbResult ab(const std::vector<std::reference_wrapper<Timer>>& timers, const AbOptions& options = {});

// The statistics of rounds already timed: per alternative the median per-call time,
// the ratio to the first, its interval, the p-value and the verdict. `numbers` gives each
// alternative's calls per block. For synthetic rounds in tests, and for ab itself.
std::vector<AbAlternative> summarize_rounds(const std::vector<AbRound>& rounds, const std::vector<std::int64_t>& numbers,
                                            double alpha, double noise_floor);

// Whether every ratio's interval lies within +/- precision of its ratio.
bool ab_precise_enough(const std::vector<AbAlternative>& alternatives, double precision);

}  // namespace vitals
