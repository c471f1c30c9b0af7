#include "measure_case.hpp"

#include <fmt/format.h>

#include <chrono>

#include "stop_signals.hpp"
#include "vitals/counters.hpp"

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

CaseResult run_case(const Case& c, const MeasureOptions& o, double timeout_seconds) {
    CaseResult result{c.name, std::nullopt, "", ""};
    // An exit() from here on is the case's: StopSignals' rescue keeps what was measured.
    struct InCase {
        InCase() { set_in_case(true); }
        ~InCase() { set_in_case(false); }
    } in_case;
    try {
        Timer timer = c.timer();
        if (o.cold) timer.set_cache(Cache::cold);
        if (o.counters || timer.counters().empty()) timer.set_counters(parse_counter_list(o.counters.value_or("default")));
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
