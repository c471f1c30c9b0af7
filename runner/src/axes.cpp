// Case families' axes on the command line (--axis), and the growth of cost along them.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <map>

#include "command.hpp"
#include "flags.hpp"
#include "vitals/complexity.hpp"

namespace vitals::cli {

void AxisFlags::declare(CLI::App& app) {
    app.add_option("--axis", specs,
                   "Replace a case family's axis values, NAME=V1,V2 (repeatable), e.g. --axis n=256,2048; "
                   "'vitals list --axis ...' shows the names it makes");
}

const Registry& AxisFlags::apply(const Registry& registry, std::optional<Registry>& storage) const {
    if (specs.empty()) return registry;
    std::vector<Axis> axes;
    for (const std::string& spec : specs) {
        const std::size_t equals = spec.find('=');
        if (equals == std::string::npos || equals == 0 || equals + 1 == spec.size()) {
            throw UsageError(fmt::format("--axis '{}' is not NAME=V1,V2 (e.g. --axis n=256,2048)", spec));
        }
        Axis axis{spec.substr(0, equals), {}};
        std::string rest = spec.substr(equals + 1);
        std::size_t start = 0;
        for (;;) {
            const std::size_t comma = rest.find(',', start);
            const std::string value = rest.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
            if (value.empty() || std::any_of(value.begin(), value.end(), [](unsigned char c) { return std::isspace(c) || c == '/'; })) {
                throw UsageError(fmt::format("--axis '{}' has an empty value or one with spaces or '/'", spec));
            }
            if (std::find(axis.values.begin(), axis.values.end(), value) == axis.values.end()) axis.values.push_back(value);
            if (comma == std::string::npos) break;
            start = comma + 1;
        }
        if (std::any_of(axes.begin(), axes.end(), [&](const Axis& a) { return a.name == axis.name; })) {
            throw UsageError(fmt::format("--axis {} is given twice; give all its values at once (--axis {}=A,B)", axis.name, axis.name));
        }
        axes.push_back(std::move(axis));
    }
    try {
        storage = registry.with_axes(axes);
    } catch (const std::invalid_argument& e) {
        throw UsageError(e.what());
    }
    if (!storage->problems().empty()) throw UsageError(storage->problems().front());
    return *storage;
}

std::string growth_report(const Registry& registry, const std::vector<CaseResult>& results) {
    std::string out;
    for (const CaseFamily& family : registry.families()) {
        for (const Axis& axis : family.axes) {
            const bool numeric = std::all_of(axis.values.begin(), axis.values.end(),
                                             [](const std::string& v) { return parse_axis_integer(v).has_value(); });
            if (!numeric) continue;
            // The other axes' values -> (size, median) of the measured cases.
            std::map<std::string, std::vector<std::pair<double, double>>> groups;
            std::vector<std::string> order;
            for (const CaseResult& r : results) {
                const Case* c = registry.find(r.name);
                if (c == nullptr || c->family != family.name || !r.measurement) continue;
                std::string key;
                for (const auto& [name, value] : c->axes.all()) {
                    if (name != axis.name) key += (key.empty() ? "" : ", ") + name + "=" + value;
                }
                const auto size = parse_axis_integer(c->axes[axis.name]);
                if (!size || *size <= 0) continue;
                if (!groups.count(key)) order.push_back(key);
                groups[key].emplace_back(static_cast<double>(*size), r.measurement->median());
            }
            for (const std::string& key : order) {
                const auto& points = groups.at(key);
                std::vector<double> sizes, times;
                for (const auto& [n, t] : points) sizes.push_back(n), times.push_back(t);
                std::vector<double> distinct = sizes;
                std::sort(distinct.begin(), distinct.end());
                if (std::unique(distinct.begin(), distinct.end()) - distinct.begin() < 3) continue;
                const stats::ComplexityFit fit = stats::fit_complexity(sizes, times);
                out += fmt::format("{} over {}{}: {}, RMS {:.1f}%; log-log fit: {}^{:.2f}\n", family.name, axis.name,
                                   key.empty() ? "" : " (" + key + ")", stats::growth_name(fit.best.growth), fit.best.rms * 100,
                                   axis.name, fit.exponent);
            }
        }
    }
    return out.empty() ? out : "\ngrowth of the cost (Google Benchmark's Complexity fits, least RMS):\n" + out;
}

}  // namespace vitals::cli
