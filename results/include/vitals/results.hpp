// Results files: Google Benchmark's JSON layout plus vitals' fields, so the tools that
// read those files read ours.
#pragma once

#include <functional>
#include <optional>
#include <utility>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "vitals/machine_check.hpp"
#include "vitals/measurement.hpp"

namespace vitals {

// The outcome of one case: a measurement, or why there is none.
struct CaseResult {
    std::string name;
    std::optional<Measurement> measurement;
    std::string skipped;  // non-empty: the case could not run here, and why
    std::string error;    // non-empty: the case failed, and how
    std::optional<double> instructions;  // per call, when counted (a counter in the JSON)
    // With process-level repetitions (run --processes): each process's measurement, in
    // process order; `measurement` then joins them (per-call times, number_per_run 1).
    std::vector<Measurement> per_process;
    // Which process measured each of per_process (0-based; empty: 0, 1, 2, ...).
    std::vector<int> processes;
    // The processes in which the case failed (its worker crashed, hung, exited early, or
    // the case itself failed there), and why. Any of them makes the case failed (`error`).
    struct ProcessFailure {
        int process = 0;  // 0-based
        std::string why;
    };
    std::vector<ProcessFailure> failed_processes;

    // The process that measured per_process[i].
    int process_of(std::size_t i) const { return i < processes.size() ? processes[i] : static_cast<int>(i); }
};

inline constexpr int kResultsSchemaVersion = 1;

// A case against its machine's limits, as `run --roofline` wrote it.
struct RooflinePoint {
    double intensity = 0;         // flops per byte; 0 without flops
    double achieved = 0;          // FLOP/s, or bytes per second without flops
    double bound = 0;             // the attainable rate, same unit
    double share = 0;             // achieved / bound
    std::string verdict;          // "memory-bound (L2)", "compute-bound"
};

// The machine ceilings a run wrote (run --roofline): for drawing the roofline.
struct MachineCeilings {
    std::string cpu_model;
    double peak_f32 = 0, peak_f64 = 0;  // FLOP/s, of the cores the cases used
    std::vector<std::pair<std::string, double>> bandwidth;  // level, best bytes per second
};

// A case's place on the roofline, for the results file.
struct RooflineRecord {
    std::string name;
    RooflinePoint point;
};

// How the run that produced the results went, for the document's context.
struct RunContext {
    std::string shard;               // "K/N" when this process ran one shard
    bool incomplete = false;         // interrupted: fewer cases than planned were measured
    std::size_t cases_planned = 0;   // with incomplete: how many the run meant to measure
    // With --roofline: the machine's ceilings and each placed case's point.
    std::optional<MachineCeilings> ceilings;
    std::vector<RooflineRecord> roofline;
    // With run --trace-dir: the folder of the cases' traces, as the results file records
    // it (`vitals_trace_dir`, relative to the results file's folder unless absolute).
    std::string trace_dir;
    // The measuring processes' address-space layout: "on" (randomised), "off (...)" with
    // why; empty: not recorded.
    std::string aslr;
    // What would disturb the results (vitals doctor's findings), taken before the first
    // case so that the run's own load is not in it; nullopt: taken when the file is written.
    std::optional<std::vector<machine::Finding>> machine_check;
};

// The unit of a results file's times, Google Benchmark's `time_unit`.
enum class TimeUnit { ns, us, ms, s };
std::string_view time_unit_name(TimeUnit unit);
// "ns", "us", "ms" or "s"; nullopt for anything else.
std::optional<TimeUnit> parse_time_unit(std::string_view name);
// The unit a Google Benchmark user would give such a case with ->Unit(): the largest in
// which `seconds` is at least 1 (ns below a microsecond, s from a second up).
TimeUnit time_unit_for(double seconds);

// Which entries a results document holds per case.
enum class JsonLayout {
    blocks,      // one "iteration" entry per block, then the aggregates: what the tests need
    aggregates,  // the aggregates alone, as Google Benchmark's --benchmark_report_aggregates_only
    // One "iteration" entry per measured case, named as the case: its median, with the
    // median's 95% interval, the blocks and processes as vitals_ fields. For dashboards,
    // which chart every entry: a case that was not measured has no entry (it is listed in
    // the context's vitals_not_measured), so none is charted at a time of 0.
    medians,
};
std::string_view json_layout_name(JsonLayout layout);
std::optional<JsonLayout> parse_json_layout(std::string_view name);

// How the document is laid out, for the tools that read it.
struct ResultsLayout {
    JsonLayout entries = JsonLayout::blocks;
    // Every case in this unit (Google Benchmark's default, ns, so that two files always
    // agree); nullopt: each case in time_unit_for its median.
    std::optional<TimeUnit> time_unit = TimeUnit::ns;
};

// The whole results document: a `context` describing this machine and program, then per
// case the entries of layout.entries (by default one "iteration" entry per block and the
// mean/median/stddev/cv/p25/p75/iqr aggregates; docs/runner.md, "Results JSON"). Times
// are per call, in each entry's time_unit.
std::string results_to_json(const std::vector<CaseResult>& results, const std::string& executable,
                            const RunContext& run = {}, const ResultsLayout& layout = {});

// One case of a results file read back: the per-call time of every block (repetition).
struct CaseSamples {
    std::string name;
    std::vector<double> seconds;  // real time per call
    std::string label, sub_label, description;
    std::optional<double> instructions;  // per call, when the file has the counter
    std::vector<int> process;  // per block, the process that measured it (all 0: one process)
    // Why there are no blocks: "failed: ..." or "skipped: ..." as the run recorded it.
    std::string not_measured;
    // The work of one call, when the run stated it (vitals_work).
    WorkPerCall work;
    // Where the run placed the case against its machine's limits (run --roofline).
    std::optional<RooflinePoint> roofline;
    // The processes in which the case failed while others measured it (run --processes):
    // "process 2: why", for a warning; its blocks are those of the other processes.
    std::vector<std::string> failed_processes;
    // Read from a file of aggregates only: `seconds` holds one value, the median (or the
    // mean where the file has no median) of this many repetitions. 0: per-block times.
    std::size_t aggregate_of = 0;
    // Measured with the caches evicted before every call (run --cold; "vitals_cache": "cold").
    bool cold = false;
    // "cold" or "warm", as results files, the history and reports name the cache state.
    static const char* cache_state(bool cold) { return cold ? "cold" : "warm"; }

    // How many processes measured the case, and the median per-call time of each.
    std::size_t process_count() const;
    std::vector<double> process_medians() const;
};

// A results file read back: its cases, and whether its run was interrupted.
struct ResultsFile {
    std::vector<CaseSamples> cases;
    std::optional<MachineCeilings> ceilings;
    bool incomplete = false;        // marked so by an interrupted run (or a merge of one)
    std::size_t cases_planned = 0;  // with incomplete, when known
    // The folder of the cases' traces (run --trace-dir), as written in the file: relative
    // to the file's folder unless absolute; empty when the run wrote none.
    std::string trace_dir;
    // Its context has vitals_schema_version: vitals wrote it (else Google Benchmark did).
    bool written_by_vitals = false;
    // The file's "context" object as written (JSON text; empty when it has none), for what
    // else a reader wants of it.
    std::string context_json;
};

// The case of that name, or nullptr.
const CaseSamples* find_samples(const std::vector<CaseSamples>& cases, std::string_view name);

// Reads our results files and Google Benchmark's own JSON output (a repetition there is
// a block here; errored runs are kept as not measured; aggregates are skipped, except
// for a case that has nothing else, as in a file written with aggregates only: its
// median then stands as its one sample, see CaseSamples::aggregate_of), with what the
// file says of its run. Throws ResultsFileError for a file that cannot be read, is not
// JSON or is not of that layout.
ResultsFile read_results_file(const std::string& path);
// The same from the text of such a file; `name` appears in error messages.
ResultsFile parse_results_file(std::string_view text, const std::string& name);
// Only the cases of such a text.
std::vector<CaseSamples> parse_results(std::string_view text, const std::string& name);

struct ResultsFileError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// Results of one run, named (a file name, "before", ...).
using NamedResults = std::pair<std::string, std::vector<CaseSamples>>;

// What makes a before/after difference a verdict, shared by every report: `compare`,
// `report` and `run --baseline` take the same flags for it.
struct ReportOptions {
    double alpha = 0.05;        // significance level of the two-sided U test
    double noise_floor = 0.01;  // a fraction: smaller changes of the median count as same
};

// One self-contained HTML page (inline SVG box plots, no scripts) of the cases in one or
// more runs; with exactly two, the second is "after" the first, with verdicts.
// With `ceilings` (each run's, as read from its file; run --roofline writes them) the page
// also draws the roofline of the cases that state their flops.
std::string html_report(const std::vector<NamedResults>& runs, const ReportOptions& options = {},
                        const std::vector<std::optional<MachineCeilings>>& ceilings = {});
// The same as markdown tables, for a pull request.
std::string markdown_report(const std::vector<NamedResults>& runs, const ReportOptions& options = {});
// Reads a results file that vitals wrote back into CaseResults (measurements rebuilt
// from the blocks: number_per_run, times, CPU times, label fields; statement texts are
// not in the file). For joining the files of run --processes. Throws ResultsFileError.
std::vector<CaseResult> read_case_results(const std::string& path);

// A measured run's cases as CaseSamples (per-call times of every block).
std::vector<CaseSamples> samples_of(const std::vector<CaseResult>& results);

// Joins shard files into one document: their cases in file order, the first file's
// context plus "vitals_merged_from". Throws ResultsFileError for bad files or a case
// that appears in two of them. The entries are copied as written, one file in memory at a
// time, and given to `write` piece by piece; on an error, what was given stays given.
void merge_results(const std::vector<std::string>& paths, const std::function<void(std::string_view)>& write);
// The same, whole, in a string.
std::string merge_results(const std::vector<std::string>& paths);

}  // namespace vitals
