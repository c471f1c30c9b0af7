// Two cases whose Timers say nothing about themselves (plain lambdas, no label): the
// runner's tables must still show both.
#include <vitals/vitals.hpp>

#include <chrono>

namespace {
void spin_for(std::chrono::microseconds duration) {
    const auto end = std::chrono::steady_clock::now() + duration;
    while (std::chrono::steady_clock::now() < end) {
    }
}
}  // namespace

VITALS_CASE("spin/short") {
    return vitals::Timer({.stmt = [] { spin_for(std::chrono::microseconds(20)); }});
}

VITALS_CASE("spin/long") {
    return vitals::Timer({.stmt = [] { spin_for(std::chrono::microseconds(100)); }});
}

VITALS_MAIN()
