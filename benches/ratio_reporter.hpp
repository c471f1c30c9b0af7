// The kernel bench's reporter: Google Benchmark's console output as usual, and at the
// end the ratios each case is judged by (of the medians when run with
// --benchmark_repetitions=N), refused where a yardstick is doubted (yardstick.hpp).
#pragma once

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "yardstick.hpp"

namespace vitals::benches {

// Remembers every run's figures while printing as usual.
class RatioReporter : public benchmark::ConsoleReporter {
public:
    void ReportRuns(const std::vector<Run>& runs) override;

    void print_ratios() const;

private:
    // A bandwidth case's op and the copies timed in its iterations (time_against_copies).
    struct BandwidthCase {
        std::int64_t bytes = 0;
        double op = 0, memcpy = 0, vector_copy = 0;  // bytes per second
        double yardstick() const { return std::max(memcpy, vector_copy); }
    };

    void record_bandwidth_case(std::string name, const benchmark::UserCounters& counters);

    // The case's yardstick among the other cases' at other byte counts (the best at each):
    // what yardstick_doubt compares it with.
    Yardsticks yardsticks_around(const BandwidthCase& measured) const;

    // A case timed in turns with another (time_in_turns): both seconds a call.
    void record_turns(std::string name, double seconds, const benchmark::UserCounters& counters);

    // The case's seconds over those of what took turns with it.
    void turn_ratio(const std::string& name, const char* case_is, const char* other_is) const;

    static std::string strip_manual_time(std::string name);

    // The op's bytes per second over its yardstick's, or why not.
    void bandwidth_ratio(const std::string& op) const;

    static void ratio(const std::string& a, const std::string& b, const std::map<std::string, double>& values);

    std::map<std::string, double> times_;
    std::map<std::string, BandwidthCase> bandwidth_cases_;
    std::map<std::string, std::pair<double, double>> turns_;  // seconds a call: the case's, the other's
    std::set<std::string> medians_;
};

}  // namespace vitals::benches
