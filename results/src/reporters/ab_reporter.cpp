// vitals ab's table.
#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <vector>

#include "vitals/results/ab_report.hpp"
#include "vitals/results/markup.hpp"
#include "vitals/stats.hpp"

namespace vitals {
namespace {

// A, B, ..., Z, then 27, 28, ...: how the table and its footer name the alternatives.
std::string letter(std::size_t i) { return i < 26 ? std::string(1, static_cast<char>('A' + i)) : std::to_string(i + 1); }

std::string order_name(std::size_t alternatives) {
    std::string forward, backward;
    for (std::size_t i = 0; i < alternatives; ++i) {
        forward += letter(i);
        backward = letter(i) + backward;
    }
    return alternatives == 2 ? "ABBA" : forward + " " + backward;
}

std::string p_text(double p) { return p < 0.001 ? "<0.001" : fmt::format("{:.3f}", p); }

}  // namespace

std::string render_ab_text(const AbResult& r) {
    const std::size_t k = r.alternatives.size();
    std::string stop;
    switch (r.stopped_by) {
        case AbStop::precision:
            stop = fmt::format("every interval within +/-{:g}%", r.precision * 100);
            break;
        case AbStop::max_run_time:
            stop = fmt::format("the time limit, before every interval was within +/-{:g}%", r.precision * 100);
            break;
        case AbStop::interrupted:
            stop = "interrupted; the figures are those of the rounds measured (incomplete)";
            break;
        case AbStop::failed: {
            const std::size_t i = r.failure ? r.failure->alternative : 0;
            stop = fmt::format("'{}' threw ({}); the figures are those of the rounds before (incomplete, untested)",
                               terminal_safe(i < k ? r.alternatives[i].name : "?"),
                               terminal_safe(r.failure ? r.failure->message : ""));
            break;
        }
    }
    std::string out = fmt::format("Interleaved A/B: {} alternatives, {} round{} in {:.2f} s ({} order); stopped: {}\n", k,
                                  r.rounds.size(), r.rounds.size() == 1 ? "" : "s", r.wall_seconds, order_name(k), stop);
    std::size_t name_width = 4;
    for (const AbAlternative& a : r.alternatives) name_width = std::max(name_width, terminal_safe(a.name).size());
    name_width = std::min<std::size_t>(name_width, 60);
    out += fmt::format("   {:<{}}  {:>11}  {:>9}  {:>8}  {:>19}  {:>6}  {}\n", "case", name_width, "median", "ratio", "change",
                       "95% interval", "p", "verdict");
    for (std::size_t i = 0; i < k; ++i) {
        const AbAlternative& a = r.alternatives[i];
        std::string name = terminal_safe(a.name);
        if (name.size() > name_width) name = name.substr(0, name_width - 3) + "...";
        const std::string median = r.rounds.empty() ? "-" : stats::format_seconds(a.median);
        if (i == 0) {
            out += fmt::format("{:<2} {:<{}}  {:>11}  {:>9}  {:>8}  {:>19}  {:>6}  {}\n", letter(i), name, name_width, median,
                               "1", "", "", "", "(reference)");
            continue;
        }
        const std::string interval = a.ratio_interval ? fmt::format("[{:.4f}, {:.4f}]", a.ratio_interval->first,
                                                                    a.ratio_interval->second)
                                                      : "-";
        out += fmt::format("{:<2} {:<{}}  {:>11}  {:>9.4f}  {:>8}  {:>19}  {:>6}  {}\n", letter(i), name, name_width, median,
                           a.ratio, percent_change(a.ratio - 1.0), interval, p_text(a.p_value), stats::verdict_name(a.verdict));
    }
    out += fmt::format("ratio: per-call time over A's in the same round, the median over rounds; its 95% interval from "
                       "order statistics (none under 6 rounds); p: two-sided sign test of the rounds' ratios against 1; "
                       "same: not significant at alpha {:g}, or a change under {:g}%.\n",
                       r.alpha, r.noise_floor * 100);
    return out;
}

}  // namespace vitals
