// The flag groups and validators that several commands declare. Internal to the runner.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "vitals/case.hpp"
#include "vitals/results.hpp"
#include "vitals/significance.hpp"

namespace CLI {
class App;
class Option;
class Validator;
}  // namespace CLI

namespace vitals::cli {

// CLI11 validators: a finite number of seconds > 0; a number in (0, 1); a finite number
// >= 0 (nan refused); a whole number in [min, max] written in decimal (leading zeros
// are dropped rather than read as octal, "0x" and exponents refused).
CLI::Validator positive_seconds();
CLI::Validator open_unit_interval();
CLI::Validator finite_non_negative();
CLI::Validator decimal_integer(std::int64_t min, std::int64_t max);

// The report flags that compare, report and run --baseline share.
// An option not given leaves ReportOptions' default.
struct ReportFlags {
    std::optional<double> alpha;
    std::optional<double> noise_floor_percent;
    // Declares --alpha and --noise-floor on `app`.
    void declare(CLI::App& app);
    ReportOptions options() const;
};

// --fail-on VERDICT[,VERDICT]: the CI gate of compare, ab, run --baseline and report.
// slower, faster, changed (slower or faster), untested (a case read from aggregates only,
// where no test is possible).
struct FailOnFlag {
    std::vector<std::string> verdicts;
    CLI::Option* declare(CLI::App& app);
    bool given() const { return !verdicts.empty(); }
    // Whether a case with this verdict fails the gate.
    bool fails(stats::Verdict verdict) const;
    // Says on stderr, per verdict named, which of `cases` (name, verdict) got it, and throws
    // VerdictFailed (exit 3) when any did. Call it once every output is written.
    void check(const std::vector<std::pair<std::string, stats::Verdict>>& cases) const;
};

// --axis NAME=V1,V2 (repeatable): the values of a case family's axis, replaced for this
// command (list, run, timeit, profile), as NVBench's -a.
struct AxisFlags {
    std::vector<std::string> specs;
    void declare(CLI::App& app);
    // `registry`, or its cases with the axes replaced (kept in `storage`). UsageError for a
    // malformed spec, an unknown axis or a value the axis cannot take.
    const Registry& apply(const Registry& registry, std::optional<Registry>& storage) const;
};

// After a run: how each family's cost grows along each numeric axis with 3 or more
// values measured (a line per group of the other axes' values); "" when none.
std::string growth_report(const Registry& registry, const std::vector<CaseResult>& results);

// How run and timeit lay out their --json file, for the tools that read it.
struct ResultsLayoutFlags {
    std::string entries = "blocks";  // blocks, aggregates or medians
    bool aggregates_only = false;    // Google Benchmark's spelling of --json-layout aggregates
    std::string time_unit = "ns";    // ns, us, ms, s, or auto (per case, by its median)
    // Declares --json-layout, --json-aggregates-only and --time-unit on `app`, all needing `json`.
    void declare(CLI::App& app, CLI::Option* json);
    ResultsLayout layout() const;
};

}  // namespace vitals::cli
