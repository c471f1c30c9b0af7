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
    if (o.number > 0) return timer.timeit(o.number);
    if (o.adaptive || o.precision > 0) {
        AdaptiveAutorangeOptions a{.threshold = o.threshold,
                                   .precision = o.precision,
                                   .max_run_time = o.max_run_time,
                                   .callback = stop_if_interrupted};
        if (o.min_run_time > 0) a.min_run_time = o.min_run_time;
        return timer.adaptive_autorange(a);
    }
    BlockedAutorangeOptions b{.callback = stop_if_interrupted};
    if (o.min_run_time > 0) b.min_run_time = o.min_run_time;
    return timer.blocked_autorange(b);
}

}  // namespace

void MeasureOptions::declare(CLI::App& app) {
    app.add_option("--min-run-time", min_run_time, "Seconds of measured blocks to gather (default 0.2; adaptive 0.01)")
        ->check(positive_seconds());
    auto* adaptive_flag = app.add_flag("--adaptive", adaptive, "Time blocks until IQR/median < threshold");
    app.add_option("--threshold", threshold, "Adaptive: the IQR/median to reach (default 0.1)")
        ->check(open_unit_interval())
        ->needs(adaptive_flag);
    app.add_option("--precision", precision,
                       "Time blocks until the median's 95% confidence interval is within +/- this fraction of it "
                       "(e.g. 0.01), or --max-run-time")
            ->check(open_unit_interval())
            ->excludes(adaptive_flag);
    max_run_time_option_ = app.add_option("--max-run-time", max_run_time,
                                          "Adaptive or precision: stop after this many seconds of wall time (default 10)")
                               ->check(positive_seconds());
}

void MeasureOptions::validate() const {
    if (max_run_time_option_ != nullptr && max_run_time_option_->count() > 0 && !adaptive && precision <= 0) {
        throw UsageError("--max-run-time goes with --adaptive or --precision; add one of them");
    }
    if ((adaptive || precision > 0) && min_run_time > 0 && max_run_time < min_run_time) {
        throw UsageError(fmt::format("--max-run-time ({}) is below --min-run-time ({}); raise --max-run-time",
                                     max_run_time, min_run_time));
    }
}

std::vector<std::string> MeasureOptions::arguments() const {
    // Shortest round-trip text of each number, so the worker measures exactly as asked.
    const auto number = [](double v) { return fmt::format("{}", v); };
    std::vector<std::string> out;
    if (min_run_time > 0) out.insert(out.end(), {"--min-run-time", number(min_run_time)});
    if (adaptive) out.insert(out.end(), {"--adaptive", "--threshold", number(threshold)});
    if (precision > 0) out.insert(out.end(), {"--precision", number(precision)});
    if (adaptive || precision > 0) out.insert(out.end(), {"--max-run-time", number(max_run_time)});
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
