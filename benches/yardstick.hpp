// The bandwidth yardstick the kernel bench divides by, and the rule that keeps a bad one
// from producing a ratio. A yardstick is the faster of two copies of the same bytes
// (memcpy and a plain vector loop); one that disagrees by more than 2x with the copies of
// every neighbouring size, and does not lie between them, is doubted, and its ratios are
// not printed: a copy slowed by an accident (4 KiB aliasing) would make a ratio many times
// too high. A copy slower than the smaller size's and faster than the larger's is a step
// down the cache levels, however steep (a step out of L3 can be 2-3x). So is the largest
// size's copy slower than the one below it, and the smallest size's faster than the one
// above it: at the edges there is one neighbour to step from.
#pragma once

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <map>
#include <optional>
#include <string>

#include <fmt/format.h>

namespace vitals::benches {

inline constexpr double kYardstickTolerance = 2.0;

// The best bytes per second at each size, of every copy measured at that size.
using Yardsticks = std::map<std::int64_t, double>;

// Why the yardstick at `bytes` is not to be divided by; nothing when it is sound. A size
// with no neighbour is not doubted (there is nothing to compare it with), nor one whose
// speed steps down from the smaller neighbour's to the larger's, where it has each.
inline std::optional<std::string> yardstick_doubt(const Yardsticks& yardsticks, std::int64_t bytes) {
    const auto at = yardsticks.find(bytes);
    if (at == yardsticks.end()) return fmt::format("no copy of {} bytes was measured", bytes);
    if (!(at->second > 0)) return fmt::format("the copy of {} bytes measured no bandwidth", bytes);
    std::string neighbours;
    int agreeing = 0, compared = 0;
    auto compare = [&](Yardsticks::const_iterator other) {
        ++compared;
        const double ratio = at->second / other->second;
        if (ratio <= kYardstickTolerance && ratio >= 1 / kYardstickTolerance) ++agreeing;
        neighbours += fmt::format("{}{:.1f} GB/s at {} bytes", neighbours.empty() ? "" : ", ", other->second / 1e9, other->first);
    };
    const bool has_smaller = at != yardsticks.begin();
    const bool has_larger = std::next(at) != yardsticks.end();
    if (has_smaller) compare(std::prev(at));
    if (has_larger) compare(std::next(at));
    if (compared == 0 || agreeing > 0) return std::nullopt;
    const bool no_faster_than_smaller = !has_smaller || std::prev(at)->second >= at->second;
    const bool no_slower_than_larger = !has_larger || at->second >= std::next(at)->second;
    if (no_faster_than_smaller && no_slower_than_larger) return std::nullopt;
    return fmt::format("the copy of {} bytes ran at {:.1f} GB/s, more than {:.0f}x off its neighbours ({}); rerun on a quieter machine",
                       bytes, at->second / 1e9, kYardstickTolerance, neighbours);
}

}  // namespace vitals::benches
