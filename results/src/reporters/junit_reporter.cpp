#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "vitals/results/junit.hpp"
#include "vitals/results/markup.hpp"
#include "vitals/stats.hpp"

namespace vitals {
namespace {

// Seconds as JUnit's time attribute: a plain decimal (no exponent, which some readers
// refuse), to the microsecond.
std::string junit_time(double seconds) {
    return fmt::format("{:.6f}", std::isfinite(seconds) && seconds > 0 ? seconds : 0.0);
}

// Text for an element's body: each line escaped on its own, so that the lines stay lines.
std::string xml_lines(std::string_view text) {
    std::string out;
    for (std::size_t start = 0; start <= text.size();) {
        const std::size_t end = std::min(text.find('\n', start), text.size());
        out += escape_xml(text.substr(start, end - start));
        if (end == text.size()) break;
        out += '\n';
        start = end + 1;
    }
    return out;
}

std::string render_case(const JUnitCase& c) {
    std::string out = fmt::format(R"(    <testcase classname="{}" name="{}" time="{}")", escape_xml(c.classname),
                                  escape_xml(c.name), junit_time(c.seconds));
    switch (c.outcome) {
        case JUnitOutcome::failed:
            out += fmt::format(">\n      <failure message=\"{}\" type=\"{}\">{}</failure>\n    </testcase>\n",
                               escape_xml(c.message), escape_xml(c.type), xml_lines(c.details));
            break;
        case JUnitOutcome::skipped:
            out += fmt::format(">\n      <skipped message=\"{}\"/>\n    </testcase>\n", escape_xml(c.message));
            break;
        case JUnitOutcome::passed:
            out += c.details.empty() ? "/>\n"
                                     : fmt::format(">\n      <system-out>{}</system-out>\n    </testcase>\n",
                                                   xml_lines(c.details));
            break;
    }
    return out;
}

// "1.00 us [0.98 us, 1.03 us]", or the median alone without an interval.
std::string median_with_interval(double median, const std::optional<std::pair<double, double>>& interval) {
    std::string out = stats::format_seconds(median);
    if (interval) {
        out += fmt::format(" [{}, {}]", stats::format_seconds(interval->first), stats::format_seconds(interval->second));
    }
    return out;
}

std::string comparison_summary(const Comparison& comparison, const CaseComparison& c) {
    const bool any_interval = c.before_interval || c.after_interval;
    return fmt::format("{}: {} ({} -> {}{}; {})", stats::verdict_name(c.change.verdict), percent_change(c.change.change),
                       median_with_interval(c.change.before_median, c.before_interval),
                       median_with_interval(c.change.after_median, c.after_interval),
                       any_interval ? ", medians with their 95% intervals" : "",
                       c.from_aggregates ? std::string("no test: read from aggregates only")
                                         : fmt::format("p = {:.4f}, alpha {}, {}", c.change.p_value,
                                                       comparison.options.alpha,
                                                       c.by_process ? "on per-process medians" : "on per-block times"));
}

std::string ab_summary(const AbAlternative& a, const AbAlternative& first) {
    const std::string interval =
        a.ratio_interval ? fmt::format("95% interval [{:.4f}, {:.4f}]", a.ratio_interval->first, a.ratio_interval->second)
                         : std::string("no interval under 6 rounds");
    return fmt::format("{}: {} against {} (ratio {:.4f}, {}; p = {:.4f}; {} vs {} per call)",
                       stats::verdict_name(a.verdict), percent_change(a.ratio - 1), first.name, a.ratio, interval,
                       a.p_value, stats::format_seconds(a.median), stats::format_seconds(first.median));
}

}  // namespace

std::string render_junit(const std::vector<JUnitSuite>& suites) {
    std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n";
    for (const JUnitSuite& suite : suites) {
        const auto count = [&](JUnitOutcome o) {
            return std::count_if(suite.cases.begin(), suite.cases.end(), [o](const JUnitCase& c) { return c.outcome == o; });
        };
        double seconds = 0;
        for (const JUnitCase& c : suite.cases) seconds += std::isfinite(c.seconds) && c.seconds > 0 ? c.seconds : 0;
        out += fmt::format(R"(  <testsuite name="{}" tests="{}" failures="{}" skipped="{}" errors="0" time="{}")",
                           escape_xml(suite.name), suite.cases.size(), count(JUnitOutcome::failed),
                           count(JUnitOutcome::skipped), junit_time(seconds));
        if (suite.cases.empty()) {
            out += "/>\n";
            continue;
        }
        out += ">\n";
        for (const JUnitCase& c : suite.cases) out += render_case(c);
        out += "  </testsuite>\n";
    }
    return out + "</testsuites>\n";
}

JUnitSuite junit_of_run(const std::vector<CaseResult>& results, const std::string& classname) {
    JUnitSuite suite{.name = classname, .cases = {}};
    for (const CaseResult& r : results) {
        JUnitCase c{.name = r.name, .classname = classname};
        if (!r.error.empty()) {
            c.outcome = JUnitOutcome::failed;
            c.type = "error";
            c.message = r.error;
            c.details = r.error;
        } else if (!r.skipped.empty() || !r.measurement) {
            c.outcome = JUnitOutcome::skipped;
            c.message = r.skipped.empty() ? "not measured" : r.skipped;
        }
        if (r.measurement) {
            const std::vector<double>& blocks = r.measurement->raw_times();
            c.seconds = std::accumulate(blocks.begin(), blocks.end(), 0.0);
            if (c.outcome == JUnitOutcome::passed) {
                const std::int64_t calls = r.measurement->number_per_run();
                c.details = fmt::format("median {} per call ({} block{} of {} call{})",
                                        stats::format_seconds(r.measurement->median()), blocks.size(),
                                        blocks.size() == 1 ? "" : "s", calls, calls == 1 ? "" : "s");
            }
        }
        suite.cases.push_back(std::move(c));
    }
    return suite;
}

JUnitSuite junit_of_comparison(const Comparison& comparison, const VerdictFails& fails, const std::string& classname) {
    JUnitSuite suite{.name = fmt::format("{} ({} -> {})", classname, comparison.before_name, comparison.after_name),
                     .cases = {}};
    for (const CaseComparison& compared : comparison.cases) {
        JUnitCase c{.name = compared.name, .classname = classname};
        const std::string summary = comparison_summary(comparison, compared);
        if (fails && fails(compared.change.verdict)) {
            c.outcome = JUnitOutcome::failed;
            c.type = std::string(stats::verdict_name(compared.change.verdict));
            c.message = summary;
            c.details = fmt::format("{}\nbefore: {}\nafter: {}\nsame means: {}", summary, comparison.before_name,
                                    comparison.after_name, comparison.meaning_of_same());
        } else {
            c.details = summary;
        }
        suite.cases.push_back(std::move(c));
    }
    for (const auto& [name, why] : comparison.not_compared) {
        suite.cases.push_back({.name = name,
                               .classname = classname,
                               .outcome = JUnitOutcome::skipped,
                               .message = "not compared: " + why});
    }
    return suite;
}

JUnitSuite junit_of_ab(const AbResult& result, const VerdictFails& fails, const std::string& classname) {
    JUnitSuite suite{.name = classname, .cases = {}};
    if (result.alternatives.empty()) return suite;
    const AbAlternative& first = result.alternatives.front();
    for (std::size_t i = 1; i < result.alternatives.size(); ++i) {
        const AbAlternative& a = result.alternatives[i];
        JUnitCase c{.name = a.name, .classname = classname};
        for (const AbRound& round : result.rounds) {
            if (i < round.block_seconds.size()) c.seconds += round.block_seconds[i];
        }
        const std::string summary = ab_summary(a, first);
        if (result.failure) {  // cut short: every comparison failed, with what ended it
            const std::size_t who = result.failure->alternative;
            c.outcome = JUnitOutcome::failed;
            c.type = "error";
            c.message = fmt::format("'{}' threw: {}", who < result.alternatives.size() ? result.alternatives[who].name : "?",
                                    result.failure->message);
            c.details = fmt::format("{}\n{} rounds measured before it", c.message, result.rounds.size());
        } else if (fails && fails(a.verdict)) {
            c.outcome = JUnitOutcome::failed;
            c.type = std::string(stats::verdict_name(a.verdict));
            c.message = summary;
            c.details = fmt::format("{}\nalpha {}, noise floor {:.1f}%; stopped by {}", summary, result.alpha,
                                    result.noise_floor * 100, ab_stop_name(result.stopped_by));
        } else {
            c.details = summary;
        }
        suite.cases.push_back(std::move(c));
    }
    return suite;
}

}  // namespace vitals
