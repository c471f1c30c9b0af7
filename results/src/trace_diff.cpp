#include "vitals/results/trace_diff.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <vector>

#include "vitals/results/markup.hpp"
#include "vitals/profiler/trace.hpp"
#include "vitals/stats.hpp"

namespace vitals {

bool looks_like_trace(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::string head(4096, '\0');
    in.read(head.data(), static_cast<std::streamsize>(head.size()));
    head.resize(static_cast<std::size_t>(in.gcount()));
    // A gzip stream is a trace (tensorboard_trace_handler's .gz): results files are never gzipped.
    const bool gzipped = head.size() >= 2 && static_cast<unsigned char>(head[0]) == 0x1f && static_cast<unsigned char>(head[1]) == 0x8b;
    // torch's legacy profiler (1.13 without Kineto) writes a bare list of events: a results
    // file is always an object.
    const std::size_t first = head.find_first_not_of(" \t\r\n");
    const std::size_t second = first == std::string::npos ? first : head.find_first_not_of(" \t\r\n", first + 1);
    const bool bare_list = first != std::string::npos && head[first] == '[' && second != std::string::npos &&
                           (head[second] == '{' || head[second] == ']');
    return gzipped || bare_list || head.find("\"traceEvents\"") != std::string::npos ||
           head.find("\"schemaVersion\"") != std::string::npos;
}

std::string profile_diff_report(const std::string& before_path, const std::string& after_path) {
    struct Side {
        double self_us = 0;
        std::int64_t calls = 0;
    };
    std::map<std::string, std::pair<Side, Side>> by_name;
    std::vector<std::string> order;
    for (int side = 0; side < 2; ++side) {
        const profiler::Trace trace = profiler::read_chrome_trace(side == 0 ? before_path : after_path);
        for (const profiler::KeyAverage& row : trace.key_averages().rows()) {
            if (by_name.find(row.key) == by_name.end()) order.push_back(row.key);
            Side& s = side == 0 ? by_name[row.key].first : by_name[row.key].second;
            s.self_us += row.self_cpu_time_total_us;
            s.calls += row.count;
        }
    }
    std::stable_sort(order.begin(), order.end(), [&](const std::string& a, const std::string& b) {
        const auto delta = [&](const std::string& n) { return std::fabs(by_name[n].second.self_us - by_name[n].first.self_us); };
        return delta(a) > delta(b);
    });
    // Operator names come from the traces: shown with their control characters escaped.
    std::size_t width = 4;
    for (const std::string& n : order) width = std::max(width, terminal_safe(n).size());
    const auto us = [](double v) { return stats::format_seconds(v * 1e-6); };
    std::string out = fmt::format("{} -> {}: self CPU time per operator, largest change first\n\n",
                                  terminal_safe(before_path), terminal_safe(after_path));
    out += fmt::format("{:<{}}  {:>12}  {:>12}  {:>12}  {:>8}  {:>8}\n", "name", width, "self before", "self after", "change",
                       "calls", "calls");
    for (const std::string& n : order) {
        const auto& [b, a] = by_name[n];
        out += fmt::format("{:<{}}  {:>12}  {:>12}  {:>12}  {:>8}  {:>8}\n", terminal_safe(n), width, b.calls ? us(b.self_us) : "-",
                           a.calls ? us(a.self_us) : "-",
                           (a.self_us >= b.self_us ? "+" : "-") + us(std::fabs(a.self_us - b.self_us)), b.calls, a.calls);
    }
    return out;
}

}  // namespace vitals
