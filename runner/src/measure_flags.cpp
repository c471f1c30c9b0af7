#include "measure_flags.hpp"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <atomic>
#include <csignal>

#include "command.hpp"

namespace vitals::cli {
namespace {

// The signal that asked the run to stop (0: none). The first of each kind is caught; a
// second one of the same kind ends the process at once.
std::atomic<int> g_stop_signal{0};
constexpr int kStopSignals[] = {SIGINT, SIGTERM, SIGHUP};

extern "C" void on_stop_signal(int signal) {
    int none = 0;
    g_stop_signal.compare_exchange_strong(none, signal);
    std::signal(signal, SIG_DFL);
}

Measurement measure(Timer& timer, const MeasureOptions& o) {
    // Checked after every block, so Ctrl-C takes effect within one block.
    const auto stop_if_interrupted = [](std::int64_t, double) {
        if (g_stop_signal.load() != 0) throw Interrupted();
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

bool interrupted() { return g_stop_signal.load() != 0; }
int stop_signal() { return g_stop_signal.load(); }
const std::atomic<int>& stop_signal_flag() { return g_stop_signal; }

std::string signal_name(int signal) {
    switch (signal) {
        case SIGINT: return "SIGINT";
        case SIGTERM: return "SIGTERM";
        case SIGHUP: return "SIGHUP";
        default: return fmt::format("signal {}", signal);
    }
}

InterruptibleRun::InterruptibleRun() {
    g_stop_signal.store(0);
    struct sigaction action {};
    action.sa_handler = on_stop_signal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = 0;  // no SA_RESTART: a wait for a worker process returns, to pass the signal on
    for (const int signal : kStopSignals) ::sigaction(signal, &action, nullptr);
}

InterruptibleRun::~InterruptibleRun() {
    for (const int signal : kStopSignals) std::signal(signal, SIG_DFL);
}

CaseResult run_case(const Case& c, const MeasureOptions& o) {
    CaseResult result{c.name, std::nullopt, "", ""};
    try {
        Timer timer = c.timer();
        result.measurement = measure(timer, o);
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
