// Figures of `vitals machine` that cannot all be true, and which to measure again; and
// when cached figures are to be taken again. Internal to the machine part (tested by hand-made figures).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "vitals/machine.hpp"

namespace vitals::machine::detail {

// A figure to measure again: a level's bandwidth (index into one_core / all_cores) or
// the two peaks, of one core or all.
struct Refigure {
    bool peaks = false;
    bool all = false;
    std::size_t level = 0;
};

struct Contradiction {
    std::string what;
    std::vector<Refigure> again;
};

// f32 about twice f64 at the same vector width (the same where code is scalar); all
// cores at least one core; each cache level at least as fast as the one outside it
// (one core). Each within 10%.
std::vector<Contradiction> contradictions(const Limits& limits);

// Cached figures measured under load are measured again once the machine is quiet
// (the last minute's load under a quarter of the cores).
bool measure_again_when_quiet(const Limits& cached, double load_now);

}  // namespace vitals::machine::detail
