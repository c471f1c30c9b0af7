#include "vitals/results/roofline.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>

#include "vitals/results/markup.hpp"
#include "vitals/stats.hpp"

namespace vitals {

machine::Limits limits_for_roofline() {
    const bool terminal = ::isatty(STDERR_FILENO) != 0;
    bool measured = false, line_open = false;  // a progress line waits for its end
    const auto warn = [&](const std::string& message) {
        fmt::print(stderr, "{}vitals: warning: {}\n", line_open ? "\n" : "", message);
        line_open = false;
    };
    machine::Limits limits = machine::limits(
        false,
        [&](std::string_view what, double done) {
            if (!measured) fmt::print(stderr, "measuring this machine's limits once (cached for later runs)\n");
            measured = true;
            if (terminal) fmt::print(stderr, "\r[{:3.0f}%] {:<40}", done * 100, what);
            line_open = terminal;
        },
        warn);
    if (line_open) fmt::print(stderr, "\n");
    return limits;
}

std::optional<RooflinePoint> place_case(const machine::Limits& limits, const Measurement& m) {
    const WorkPerCall& work = m.task_spec().work;
    if (!(work.bytes > 0 || work.flops > 0) || !(m.median() > 0)) return std::nullopt;
    const machine::Placement p = machine::place(limits, work, m.task_spec().num_threads, m.median(), m.task_spec().cold);
    return RooflinePoint{p.intensity, work.flops > 0 ? p.achieved_flops : p.achieved_bytes, p.bound, p.share, p.verdict};
}

MachineCeilings ceilings_of(const machine::Limits& limits) {
    MachineCeilings c{limits.identity.cpu_model, limits.peak_f32_one_core, limits.peak_f64_one_core, {}};
    for (const machine::Bandwidth& b : limits.one_core) c.bandwidth.emplace_back(b.level, std::max({b.read, b.copy, b.triad}));
    return c;
}

namespace {
std::string rate(double value, bool flops) { return fmt::format("{:.1f} {}", value / 1e9, flops ? "GFLOP/s" : "GB/s"); }
}  // namespace

std::string roofline_line(const RooflinePoint& point, const WorkPerCall& work) {
    const bool flops = work.flops > 0;
    return fmt::format("  Roofline: {:.0f}% of {} ({}){}", point.share * 100, rate(point.bound, flops), point.verdict,
                       flops && work.bytes > 0 ? fmt::format(", {:.2f} flop/byte", point.intensity) : "");
}

std::string roofline_table(const std::vector<CaseResult>& results, const std::vector<RooflineRecord>& points) {
    if (points.empty()) return "";
    std::size_t width = 4;
    for (const RooflineRecord& r : points) width = std::max(width, terminal_safe(r.name).size());
    std::string out = fmt::format("\n{:<{}}  {:>10}  {:>12}  {:>14}  {:>10}  {:>16}  {:>6}  {}\n", "case", width, "median",
                                  "GB/s", "GFLOP/s", "flop/byte", "bound", "share", "verdict");
    for (const RooflineRecord& r : points) {
        const auto found = std::find_if(results.begin(), results.end(), [&](const CaseResult& c) { return c.name == r.name; });
        if (found == results.end() || !found->measurement) continue;
        const Measurement& m = *found->measurement;
        const WorkPerCall& work = m.task_spec().work;
        const double seconds = m.median();
        out += fmt::format("{:<{}}  {:>10}  {:>12}  {:>14}  {:>10}  {:>16}  {:>5.0f}%  {}\n", terminal_safe(r.name), width,
                           stats::format_seconds(seconds), work.bytes > 0 ? fmt::format("{:.2f}", work.bytes / seconds / 1e9) : "-",
                           work.flops > 0 ? fmt::format("{:.2f}", work.flops / seconds / 1e9) : "-",
                           work.flops > 0 && work.bytes > 0 ? fmt::format("{:.2f}", r.point.intensity) : "-",
                           rate(r.point.bound, work.flops > 0), r.point.share * 100, r.point.verdict);
    }
    return out;
}

}  // namespace vitals
