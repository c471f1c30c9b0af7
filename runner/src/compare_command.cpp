#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "commands.hpp"
#include "vitals/profiler/trace.hpp"
#include "vitals/significance.hpp"
#include "vitals/stats.hpp"

namespace vitals::detail {
namespace {

}  // namespace

std::string compare_report(const std::string& before_name, const std::vector<CaseSamples>& before,
                           const std::string& after_name, const std::vector<CaseSamples>& after,
                           const CompareOptions& options, std::string* json_out) {
    struct Row {
        std::string name;
        stats::Change change;
        std::size_t blocks;
    };
    std::vector<Row> rows;
    std::vector<std::string> removed, added;
    for (const CaseSamples& b : before) {
        const CaseSamples* a = find_samples(after, b.name);
        if (a == nullptr) {
            removed.push_back(b.name);
        } else if (!b.seconds.empty() && !a->seconds.empty()) {
            rows.push_back({b.name, stats::compare_samples(b.seconds, a->seconds, options.alpha, options.noise_floor),
                            std::min(b.seconds.size(), a->seconds.size())});
        }
    }
    for (const CaseSamples& a : after) {
        if (find_samples(before, a.name) == nullptr) added.push_back(a.name);
    }
    if (rows.empty()) {
        throw ResultsFileError(fmt::format("'{}' and '{}' have no case in common; compare results of the same cases",
                                           before_name, after_name));
    }

    std::size_t name_width = std::string_view("geomean").size();
    for (const Row& r : rows) name_width = std::max(name_width, r.name.size());
    std::string out = fmt::format(
        "{} -> {}: two-sided Mann-Whitney U test on per-block times, alpha {}; changes under {:.1f}% count as same\n\n",
        before_name, after_name, options.alpha, options.noise_floor * 100);
    out += fmt::format("{:<{}}  {:>12}  {:>12}  {:>9}  {:>9}  {}\n", "case", name_width, "before", "after", "change",
                       "p-value", "verdict");
    double log_sum = 0;
    int few_blocks = 0;
    nlohmann::json cases = nlohmann::json::array();
    for (const Row& r : rows) {
        out += fmt::format("{:<{}}  {:>12}  {:>12}  {:>+8.2f}%  {:>9.4f}  {}\n", r.name, name_width,
                           stats::format_seconds(r.change.before_median), stats::format_seconds(r.change.after_median), r.change.change * 100,
                           r.change.p_value, stats::verdict_name(r.change.verdict));
        log_sum += std::log(r.change.after_median / r.change.before_median);
        few_blocks += r.blocks < 9 ? 1 : 0;
        cases.push_back({{"name", r.name},
                         {"before_median", r.change.before_median},
                         {"after_median", r.change.after_median},
                         {"change", r.change.change},
                         {"p_value", r.change.p_value},
                         {"verdict", stats::verdict_name(r.change.verdict)}});
    }
    const double geomean = std::exp(log_sum / static_cast<double>(rows.size())) - 1;
    out += fmt::format("{:<{}}  {:>12}  {:>12}  {:>+8.2f}%\n", "geomean", name_width, "", "", geomean * 100);
    std::string counted;
    for (const Row& r : rows) {
        const CaseSamples* b = find_samples(before, r.name);
        const CaseSamples* a = find_samples(after, r.name);
        if (b->instructions && a->instructions && *b->instructions > 0) {
            counted += fmt::format("  {:<{}}  {:>14.1f}  {:>14.1f}  {:>+8.2f}%\n", r.name, name_width, *b->instructions,
                                   *a->instructions, (*a->instructions - *b->instructions) / *b->instructions * 100);
        }
    }
    if (!counted.empty()) out += "\ninstructions per call (deterministic: any change is real):\n" + counted;
    if (!removed.empty()) out += fmt::format("\nonly in {} (removed): {}\n", before_name, fmt::join(removed, ", "));
    if (!added.empty()) out += fmt::format("\nonly in {} (added): {}\n", after_name, fmt::join(added, ", "));
    if (few_blocks > 0) {
        out += fmt::format("\nnote: {} case{} with fewer than 9 blocks; the test needs 9 or more to see small changes "
                           "(raise --min-run-time)\n",
                           few_blocks, few_blocks > 1 ? "s" : "");
    }
    if (json_out != nullptr) {
        *json_out = nlohmann::json{{"before", before_name},
                                   {"after", after_name},
                                   {"alpha", options.alpha},
                                   {"noise_floor", options.noise_floor},
                                   {"cases", cases},
                                   {"geomean_change", geomean},
                                   {"added", added},
                                   {"removed", removed}}
                        .dump(2) +
                    "\n";
    }
    return out;
}

bool looks_like_trace(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::string head(4096, '\0');
    in.read(head.data(), static_cast<std::streamsize>(head.size()));
    head.resize(static_cast<std::size_t>(in.gcount()));
    return head.find("\"traceEvents\"") != std::string::npos || head.find("\"schemaVersion\"") != std::string::npos;
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
    std::size_t width = 4;
    for (const std::string& n : order) width = std::max(width, n.size());
    const auto us = [](double v) { return stats::format_seconds(v * 1e-6); };
    std::string out = fmt::format("{} -> {}: self CPU time per operator, largest change first\n\n", before_path, after_path);
    out += fmt::format("{:<{}}  {:>12}  {:>12}  {:>12}  {:>8}  {:>8}\n", "name", width, "self before", "self after", "change",
                       "calls", "calls");
    for (const std::string& n : order) {
        const auto& [b, a] = by_name[n];
        out += fmt::format("{:<{}}  {:>12}  {:>12}  {:>12}  {:>8}  {:>8}\n", n, width, b.calls ? us(b.self_us) : "-",
                           a.calls ? us(a.self_us) : "-",
                           (a.self_us >= b.self_us ? "+" : "-") + us(std::fabs(a.self_us - b.self_us)), b.calls, a.calls);
    }
    return out;
}

std::vector<std::string> slower_cases(const std::vector<CaseSamples>& before, const std::vector<CaseSamples>& after,
                                      const CompareOptions& options, double min_change) {
    std::vector<std::string> out;
    for (const CaseSamples& b : before) {
        const CaseSamples* a = find_samples(after, b.name);
        if (a == nullptr || b.seconds.empty() || a->seconds.empty()) continue;
        const stats::Change c = stats::compare_samples(b.seconds, a->seconds, options.alpha, options.noise_floor);
        if (c.verdict == stats::Verdict::slower && c.change > min_change) out.push_back(b.name);
    }
    return out;
}

Shard parse_shard(const std::string& spec) {
    const auto slash = spec.find('/');
    const auto number = [&](const std::string& text) {
        std::size_t used = 0;
        int value = -1;
        try {
            value = std::stoi(text, &used);
        } catch (...) {
            used = 0;
        }
        if (text.empty() || used != text.size()) {
            throw std::invalid_argument(fmt::format("shard '{}' is not of the form K/N (e.g. 0/4)", spec));
        }
        return value;
    };
    if (slash == std::string::npos) throw std::invalid_argument(fmt::format("shard '{}' is not of the form K/N (e.g. 0/4)", spec));
    const Shard s{number(spec.substr(0, slash)), number(spec.substr(slash + 1))};
    if (s.count < 1 || s.index < 0 || s.index >= s.count) {
        throw std::invalid_argument(fmt::format("shard '{}' needs 0 <= K < N", spec));
    }
    return s;
}

std::optional<Shard> shard_from_environment() {
    static const char* const kLaunchers[][2] = {
        {"SLURM_PROCID", "SLURM_NTASKS"},
        {"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"},
        {"PMI_RANK", "PMI_SIZE"},
        {"RANK", "WORLD_SIZE"},
    };
    for (const auto& [rank, size] : kLaunchers) {
        const char* r = std::getenv(rank);
        const char* n = std::getenv(size);
        if (r != nullptr && n != nullptr) {
            try {
                return parse_shard(std::string(r) + "/" + n);
            } catch (const std::invalid_argument& e) {
                throw std::invalid_argument(fmt::format("{}={} and {}={} do not name a shard: {}", rank, r, size, n, e.what()));
            }
        }
    }
    return std::nullopt;
}

}  // namespace vitals::detail
