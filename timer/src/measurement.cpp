#include "vitals/measurement.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <cmath>
#include <ostream>
#include <stdexcept>

#include "vitals/stats.hpp"

namespace vitals {
namespace {

constexpr double kIqrWarnThreshold = 0.1;
constexpr double kIqrGrossWarnThreshold = 0.25;
// A block this many times the median wall time is judged for a stop (see stopped_blocks).
constexpr double kStoppedFactor = 50;
// Judged only where the median block spends at least this share of its wall time on the
// CPU: with less (sleeps, waits for a device) CPU time cannot tell a stop from a wait.
constexpr double kCpuBoundShare = 0.5;
// Stopped: the block's CPU time grew by less than this share of what the median block's
// CPU share predicts for its extra wall time.
constexpr double kStoppedCpuGrowth = 0.1;

bool has_newline(const std::string& s) { return s.find('\n') != std::string::npos; }

// Python's textwrap.indent: prefix every line that is not only white space, keeping
// line endings (a trailing newline stays).
std::string indent(const std::string& text, const std::string& prefix) {
    std::string out;
    std::size_t start = 0;
    while (start < text.size()) {
        std::size_t end = text.find('\n', start);
        end = end == std::string::npos ? text.size() : end + 1;
        const std::string line = text.substr(start, end - start);
        if (line.find_first_not_of(" \t\r\n\f\v") != std::string::npos) out += prefix;
        out += line;
        start = end;
    }
    return out;
}

std::string setup_str(const std::string& setup) {
    if (setup.empty() || setup == "pass") return "";
    if (has_newline(setup)) return "setup:\n" + indent(setup, "  ");
    return "setup: " + setup;
}

}  // namespace

std::string TaskSpec::title() const {
    const std::string suffix = sub_label.empty() ? "" : ": " + sub_label;
    if (!label.empty()) return label + suffix;
    if (stmt.empty()) return "[Unknown]" + suffix;
    if (!has_newline(stmt)) return stmt + suffix;
    return "stmt:" + (sub_label.empty() ? "" : " (" + sub_label + ")") + "\n" + indent(stmt, "  ");
}

std::string TaskSpec::row_name() const {
    if (!sub_label.empty()) return sub_label;
    if (!stmt.empty()) return stmt;
    return "[Unknown]";
}

std::string TaskSpec::summarize() const {
    std::string out;
    for (const std::string& section : {title(), description, setup_str(setup)}) {
        if (section.empty()) continue;
        if (!out.empty()) out += '\n';
        out += section;
        if (has_newline(section)) out += '\n';  // a multi-line section is followed by a blank line
    }
    return out;
}

Measurement::Measurement(std::int64_t number_per_run, std::vector<double> raw_times, TaskSpec task_spec,
                         std::vector<double> raw_cpu_times)
    : number_per_run_(number_per_run),
      raw_times_(std::move(raw_times)),
      raw_cpu_times_(std::move(raw_cpu_times)),
      task_spec_(std::move(task_spec)) {
    if (raw_times_.empty()) throw std::invalid_argument("Measurement needs at least one block time");
    if (number_per_run_ < 1) {
        throw std::invalid_argument(fmt::format("Measurement: number_per_run must be >= 1, got {}", number_per_run_));
    }
    if (!raw_cpu_times_.empty() && raw_cpu_times_.size() != raw_times_.size()) {
        throw std::invalid_argument(fmt::format("Measurement: {} CPU times for {} blocks; give one per block or none",
                                                raw_cpu_times_.size(), raw_times_.size()));
    }
    for (double t : raw_times_) {
        if (!std::isfinite(t) || t < 0) {
            throw std::invalid_argument(fmt::format("Measurement: block time {} is not a finite time >= 0", t));
        }
    }
    for (double t : raw_cpu_times_) {
        if (!std::isfinite(t) || t < 0) {
            throw std::invalid_argument(fmt::format("Measurement: CPU time {} is not a finite time >= 0", t));
        }
    }
    sorted_times_ = stats::sorted_copy(times());
    median_ = stats::quantile_sorted(sorted_times_, 0.5);
    mean_ = stats::mean(sorted_times_);
    p25_ = stats::quantile_sorted(sorted_times_, 0.25);
    p75_ = stats::quantile_sorted(sorted_times_, 0.75);
    significant_figures_ = stats::significant_figures(sorted_times_, median_);

    const auto add_warning = [&](const char* why) {
        warnings_.push_back(fmt::format(
            "  WARNING: Interquartile range is {:.1f}% of the median measurement.\n           {}",
            iqr() / median_ * 100.0, why));
    };
    if (!meets_confidence(kIqrGrossWarnThreshold)) {
        add_warning("This suggests significant environmental influence.");
    } else if (!meets_confidence(kIqrWarnThreshold)) {
        add_warning("This could indicate system fluctuation.");
    }
    count_stopped_blocks();
}

void Measurement::count_stopped_blocks() {
    if (raw_cpu_times_.empty()) return;
    const double wall = stats::median(raw_times_), cpu = stats::median(raw_cpu_times_);
    if (!(wall > 0) || cpu / wall < kCpuBoundShare) return;
    const double share = cpu / wall;
    double worst = 0;
    for (std::size_t i = 0; i < raw_times_.size(); ++i) {
        const double extra_wall = raw_times_[i] - wall;
        if (raw_times_[i] > kStoppedFactor * wall && raw_cpu_times_[i] - cpu < kStoppedCpuGrowth * share * extra_wall) {
            ++stopped_blocks_;
            worst = std::max(worst, raw_times_[i] / wall);
        }
    }
    if (stopped_blocks_ == 0) return;
    warnings_.push_back(fmt::format(
        "  WARNING: {} block{} took {}{:.0f}x the median time without using more CPU time.\n"
        "           The process was stopped or descheduled (SIGSTOP, a paused VM); {} kept in the statistics.",
        stopped_blocks_, stopped_blocks_ == 1 ? "" : "s", stopped_blocks_ == 1 ? "" : "up to ", worst,
        stopped_blocks_ == 1 ? "the block is" : "the blocks are"));
}

Measurement Measurement::with_median_interval(MedianInterval interval) const {
    Measurement out = *this;
    out.median_interval_ = interval;
    return out;
}

const std::vector<double>* BlockCounters::find(std::string_view name) const {
    for (std::size_t c = 0; c < names.size(); ++c) {
        if (names[c] == name) return &values[c];
    }
    return nullptr;
}

Measurement Measurement::with_counters(BlockCounters counters) const {
    if (counters.values.size() != counters.names.size()) {
        throw std::invalid_argument(fmt::format("Measurement: {} counter names for {} counters", counters.names.size(),
                                                counters.values.size()));
    }
    for (std::size_t c = 0; c < counters.names.size(); ++c) {
        if (counters.values[c].size() != raw_times_.size()) {
            throw std::invalid_argument(fmt::format("Measurement: counter '{}' has {} values for {} blocks; give one per block",
                                                    counters.names[c], counters.values[c].size(), raw_times_.size()));
        }
    }
    if (!counters.block_calls.empty() && counters.block_calls.size() != raw_times_.size()) {
        throw std::invalid_argument(fmt::format("Measurement: {} block call counts for {} blocks; give one per block",
                                                counters.block_calls.size(), raw_times_.size()));
    }
    Measurement out = *this;
    out.counters_ = std::move(counters);
    return out;
}

std::optional<Disturbance> Measurement::disturbance() const {
    const std::vector<double>* switches = counters_.find("context-switches");
    const std::vector<double>* migrations = counters_.find("cpu-migrations");
    if (switches == nullptr || migrations == nullptr) return std::nullopt;
    const std::vector<double> per_call = times();
    std::vector<double> disturbed, quiet;
    for (std::size_t b = 0; b < per_call.size(); ++b) {
        if (!std::isfinite((*switches)[b]) || !std::isfinite((*migrations)[b])) continue;  // not read in this block
        // Counts are whole numbers, less the reading's cost: anything from a half up is one.
        ((*switches)[b] >= 0.5 || (*migrations)[b] >= 0.5 ? disturbed : quiet).push_back(per_call[b]);
    }
    Disturbance d{disturbed.size(), disturbed.size() + quiet.size(), 0.0};
    if (!disturbed.empty() && !quiet.empty() && stats::median(quiet) > 0) {
        d.median_shift = stats::median(disturbed) / stats::median(quiet) - 1;
    }
    return d;
}

std::vector<double> Measurement::times() const {
    std::vector<double> out;
    out.reserve(raw_times_.size());
    for (double t : raw_times_) out.push_back(t / static_cast<double>(number_per_run_));
    return out;
}

std::vector<double> Measurement::cpu_times() const {
    std::vector<double> out;
    out.reserve(raw_cpu_times_.size());
    for (double t : raw_cpu_times_) out.push_back(t / static_cast<double>(number_per_run_));
    return out;
}

bool Measurement::meets_confidence(double threshold) const {
    // A zero median with zero spread is as confident as it gets; NaN compares false.
    if (median_ == 0.0) return iqr() == 0.0;
    return iqr() / median_ < threshold;
}

std::vector<Measurement> Measurement::merge(std::span<const Measurement> measurements) {
    struct Group {
        TaskSpec task;
        std::vector<double> times, cpu_times;
        bool all_have_cpu = true;
        BlockCounters counters;  // every counter any measurement read; NaN in the blocks of those that did not
    };
    std::vector<Group> groups;
    for (const Measurement& m : measurements) {
        Group* group = nullptr;
        for (Group& g : groups) {
            if (g.task == m.task_spec()) group = &g;
        }
        if (group == nullptr) group = &groups.emplace_back(Group{m.task_spec(), {}, {}, true, {}});
        BlockCounters& joined = group->counters;
        const std::size_t blocks_before = group->times.size();
        const std::size_t blocks = m.raw_times().size();
        for (const std::string& name : m.counters().names) {
            if (joined.find(name) != nullptr) continue;
            joined.names.push_back(name);
            joined.values.emplace_back(blocks_before, std::numeric_limits<double>::quiet_NaN());
        }
        for (std::size_t c = 0; c < joined.names.size(); ++c) {
            const std::vector<double>* v = m.counters().find(joined.names[c]);
            if (v != nullptr) {
                joined.values[c].insert(joined.values[c].end(), v->begin(), v->end());
            } else {
                joined.values[c].resize(blocks_before + blocks, std::numeric_limits<double>::quiet_NaN());
            }
        }
        for (const std::string& why : m.counters().unavailable) {
            if (std::find(joined.unavailable.begin(), joined.unavailable.end(), why) == joined.unavailable.end()) {
                joined.unavailable.push_back(why);
            }
        }
        // number_per_run may differ between measurements: times are joined per call, and
        // counts as read, with each block's calls beside them.
        joined.block_calls.resize(blocks_before + blocks, static_cast<double>(m.number_per_run()));
        const std::vector<double> t = m.times();
        group->times.insert(group->times.end(), t.begin(), t.end());
        if (m.raw_cpu_times().empty()) {
            group->all_have_cpu = false;
        } else {
            const std::vector<double> c = m.cpu_times();
            group->cpu_times.insert(group->cpu_times.end(), c.begin(), c.end());
        }
    }
    std::vector<Measurement> out;
    out.reserve(groups.size());
    for (Group& g : groups) {
        Measurement merged(1, std::move(g.times), std::move(g.task), g.all_have_cpu ? std::move(g.cpu_times) : std::vector<double>{});
        const bool counted = !g.counters.empty() || !g.counters.unavailable.empty();
        out.push_back(counted ? merged.with_counters(std::move(g.counters)) : std::move(merged));
    }
    return out;
}

std::string Measurement::counters_lines() const {
    std::string out;
    // Only when something is worth saying, so the reference layout stays.
    if (const std::optional<Disturbance> d = disturbance(); d && d->blocks > 0) {
        out += fmt::format("\n  Disturbed: {} of {} block{} had a context switch or migration", d->blocks, d->of, d->of == 1 ? "" : "s");
        if (d->blocks < d->of) out += fmt::format(" (their median {:+.0f}%)", d->median_shift * 100);
    }
    const auto total = [&](std::string_view name) {
        const std::vector<double>* v = counters_.find(name);
        double sum = 0;
        if (v != nullptr) {
            for (double x : *v) sum += std::isfinite(x) ? x : 0.0;
        }
        return sum;
    };
    const double cycles = total("cycles"), instructions = total("instructions");
    if (cycles > 0 && instructions > 0) {
        out += fmt::format("\n  Counters: {:.2f} IPC", instructions / cycles);
        if (const double branches = total("branches"); branches > 0 && counters_.find("branch-misses") != nullptr) {
            out += fmt::format(", {:.2f}% branch misses", total("branch-misses") / branches * 100);
        }
        if (const double references = total("cache-references"); references > 0 && counters_.find("cache-misses") != nullptr) {
            out += fmt::format(", {:.1f}% cache misses", total("cache-misses") / references * 100);
        }
    }
    return out;
}

std::string Measurement::to_string() const {
    const std::size_t n = raw_times_.size();
    const stats::TimeUnit unit = stats::select_unit(median_);
    const auto in_unit = [&](double seconds) { return seconds / unit.scale; };
    std::string out = task_spec_.summarize();
    if (!out.empty()) out += '\n';
    out += fmt::format("  {}{:.2f} {}\n", n > 1 ? "Median: " : "", in_unit(median_), unit.name);
    if (n >= 4) {
        out += fmt::format("  IQR:    {:.2f} {} ({:.2f} to {:.2f})\n", in_unit(iqr()), unit.name, in_unit(p25_),
                           in_unit(p75_), unit.name);
    }
    if (const WorkPerCall& work = task_spec_.work; work.stated() && median_ > 0) {  // only when stated
        std::string rates;
        const auto add = [&](double per_call, double scale, const char* unit) {
            if (per_call > 0) rates += fmt::format("{}{:.2f} {}", rates.empty() ? "" : ", ", per_call / median_ / scale, unit);
        };
        add(work.bytes, 1e9, "GB/s");
        add(work.flops, 1e9, "GFLOP/s");
        if (work.items > 0) {  // items in whichever of k, M, G reads best
            const double rate = work.items / median_;
            const auto [scale, unit] = rate >= 1e9 ? std::pair{1e9, "G items/s"}
                                       : rate >= 1e6 ? std::pair{1e6, "M items/s"}
                                       : rate >= 1e3 ? std::pair{1e3, "k items/s"}
                                                     : std::pair{1.0, "items/s"};
            add(work.items, scale, unit);
        }
        out += fmt::format("  Throughput: {}\n", rates);
    }
    if (median_interval_) {  // only after a precision-driven run: the reference layout otherwise
        const MedianInterval& ci = *median_interval_;
        out += fmt::format("  {:.0f}% CI of the median: {:.2f} to {:.2f} {} ({:+.2f}% to {:+.2f}%)\n",
                           ci.confidence * 100, in_unit(ci.low), in_unit(ci.high), unit.name,
                           (ci.low / median_ - 1) * 100, (ci.high / median_ - 1) * 100);
    }
    out += fmt::format("  {} measurement{}, {} runs {} {} thread{}", n, n > 1 ? "s" : "", number_per_run_,
                       n > 1 ? "per measurement," : ",", task_spec_.num_threads,
                       task_spec_.num_threads > 1 ? "s" : "");
    if (task_spec_.cold) out += ", caches evicted before every call";
    out += counters_lines();
    for (const std::string& w : warnings_) out += "\n" + w;
    return out;
}

std::ostream& operator<<(std::ostream& out, const Measurement& m) { return out << m.to_string(); }

}  // namespace vitals
