#include "measure_flags.hpp"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <atomic>
#include <chrono>

#include "command.hpp"

namespace vitals::cli {
namespace {

struct TimedOut : std::runtime_error {
    using std::runtime_error::runtime_error;
};

Measurement measure(Timer& timer, const MeasureOptions& o, double timeout_seconds) {
    // Checked after every block, so a stop signal or the time limit takes effect within one block.
    const auto started = std::chrono::steady_clock::now();
    const auto stop_if_interrupted = [&](std::int64_t, double) {
        if (interrupted()) throw Interrupted();
        const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - started;
        if (timeout_seconds > 0 && elapsed.count() > timeout_seconds) {
            throw TimedOut(fmt::format("timed out: still measuring after {:.3g} s (--case-timeout {})", elapsed.count(),
                                       timeout_seconds));
        }
    };
    if (o.number) return timer.timeit(*o.number);
    if (o.adaptive || o.precision) {
        AdaptiveAutorangeOptions a{.callback = stop_if_interrupted};
        if (o.threshold) a.threshold = *o.threshold;
        if (o.precision) a.precision = *o.precision;
        if (o.min_run_time) a.min_run_time = *o.min_run_time;
        if (o.max_run_time) a.max_run_time = *o.max_run_time;
        return timer.adaptive_autorange(a);
    }
    BlockedAutorangeOptions b{.callback = stop_if_interrupted};
    if (o.min_run_time) b.min_run_time = *o.min_run_time;
    return timer.blocked_autorange(b);
}

}  // namespace

void MeasureOptions::declare(CLI::App& app) {
    const BlockedAutorangeOptions blocked;
    const AdaptiveAutorangeOptions adaptive_defaults;
    declared_.push_back(app.add_option("--min-run-time", min_run_time,
                                       fmt::format("Seconds of measured blocks to gather (default {}; adaptive {})",
                                                   blocked.min_run_time, adaptive_defaults.min_run_time))
                            ->check(positive_seconds()));
    auto* adaptive_flag = app.add_flag("--adaptive", adaptive, "Time blocks until IQR/median < threshold");
    declared_.push_back(adaptive_flag);
    declared_.push_back(app.add_option("--threshold", threshold,
                                       fmt::format("Adaptive: the IQR/median to reach (default {})", adaptive_defaults.threshold))
                            ->check(open_unit_interval())
                            ->needs(adaptive_flag));
    declared_.push_back(app.add_option("--precision", precision,
                                       "Time blocks until the median's 95% confidence interval is within +/- this fraction "
                                       "of it (e.g. 0.01), or --max-run-time")
                            ->check(open_unit_interval())
                            ->excludes(adaptive_flag));
    declared_.push_back(app.add_option("--max-run-time", max_run_time,
                                       fmt::format("Adaptive or precision: stop after this many seconds of wall time "
                                                   "(default {})",
                                                   adaptive_defaults.max_run_time))
                            ->check(positive_seconds()));
}

void MeasureOptions::validate() const {
    if (max_run_time && !adaptive && !precision) {
        throw UsageError("--max-run-time goes with --adaptive or --precision; add one of them");
    }
    const double max_seconds = max_run_time.value_or(AdaptiveAutorangeOptions{}.max_run_time);
    if ((adaptive || precision) && min_run_time && max_seconds < *min_run_time) {
        throw UsageError(fmt::format("--max-run-time ({}) is below --min-run-time ({}); raise --max-run-time",
                                     max_seconds, *min_run_time));
    }
}

std::vector<std::string> MeasureOptions::arguments() const {
    // The text as given, so the worker parses exactly what this process parsed.
    std::vector<std::string> out;
    for (const CLI::Option* option : declared_) {
        if (option->count() == 0) continue;
        out.push_back(option->get_name());
        if (option->get_expected_max() == 0) continue;  // a flag
        for (const std::string& value : option->results()) out.push_back(value);
    }
    return out;
}

CaseResult run_case(const Case& c, const MeasureOptions& o, double timeout_seconds) {
    CaseResult result{c.name, std::nullopt, "", ""};
    // An exit() from here on is the case's: StopSignals' rescue keeps what was measured.
    struct InCase {
        InCase() { set_in_case(true); }
        ~InCase() { set_in_case(false); }
    } in_case;
    try {
        Timer timer = c.timer();
        result.measurement = measure(timer, o, timeout_seconds);
    } catch (const TimedOut& e) {
        result.error = fmt::format("case '{}' {}", c.name, e.what());
    } catch (const SkipCase& skip) {
        result.skipped = skip.what();
    } catch (const Interrupted&) {
        throw;
    } catch (const std::exception& e) {
        result.error = fmt::format("case '{}' failed: {}", c.name, e.what());
    } catch (...) {
        result.error = fmt::format("case '{}' failed: it threw a non-standard exception", c.name);
    }
    return result;
}

}  // namespace vitals::cli
