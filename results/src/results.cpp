// Results files written: our measurements in Google Benchmark's JSON layout.
#include "vitals/results.hpp"

#include <fmt/chrono.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <span>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>
#include <cmath>

#include "json_document.hpp"
#include "vitals/results/ab_report.hpp"
#include "vitals/cpu_info.hpp"
#include "vitals/local_time.hpp"
#include "vitals/machine.hpp"
#include "vitals/machine_check.hpp"
#include "vitals/number_text.hpp"
#include "vitals/stats.hpp"

namespace vitals {
namespace {

using nlohmann::json;

std::string read_first_line(const std::string& path) {
    std::ifstream in(path);
    std::string line;
    std::getline(in, line);
    return line;
}

// Google Benchmark's `caches`, from the machine part's reading of /sys.
json caches() {
    json out = json::array();
    for (const machine::CacheInfo& c : machine::core0_caches()) {
        out.push_back({{"type", c.type}, {"level", c.level}, {"size", c.bytes}, {"num_sharing", c.cores_sharing}});
    }
    return out;
}

json context(const std::string& executable, const RunContext& run) {
    char host[256] = {};
    ::gethostname(host, sizeof host - 1);
    double load[3] = {0, 0, 0};
    const int loads = ::getloadavg(load, 3);
    const std::string governor = read_first_line("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor");
    json document = {
        {"date", now_iso8601()},
        {"host_name", host},
        {"executable", executable},
        {"num_cpus", std::thread::hardware_concurrency()},
        {"mhz_per_cpu", static_cast<long>(cpu_info().mhz)},
        {"vitals_cpu_model", cpu_info().model},
        {"cpu_scaling_enabled", !governor.empty() && governor != "performance"},
        {"caches", caches()},
        {"load_avg", loads > 0 ? json(std::vector<double>(load, load + loads)) : json::array()},
#ifdef NDEBUG
        {"library_build_type", "release"},
#else
        {"library_build_type", "debug"},
#endif
        {"vitals_schema_version", kResultsSchemaVersion},
        {"vitals_shard", run.shard},
    };
    // What would disturb the results (vitals doctor's notes and warnings).
    json disturbances = json::array();
    for (const machine::Finding& f : run.machine_check ? *run.machine_check : machine::check_machine({.sample_seconds = 0})) {
        if (f.verdict != machine::Verdict::ok) {
            disturbances.push_back({{"what", f.what}, {"state", f.state}, {"verdict", machine::verdict_name(f.verdict)}});
        }
    }
    document["vitals_machine_check"] = std::move(disturbances);
    // A cap on the kernels' vector paths (kernels/src/scan/staged_hits.hpp): the figures are
    // those of the narrower paths, which whoever reads the file should know.
    if (const char* cap = std::getenv("VITALS_MAX_CPU_ISA"); cap != nullptr && *cap != '\0') {
        document["vitals_max_cpu_isa"] = std::string(cap);  // written with invalid UTF-8 replaced, as every string
    }
    return document;
}

double units_per_second(TimeUnit unit) {
    switch (unit) {
        case TimeUnit::ns: return 1e9;
        case TimeUnit::us: return 1e6;
        case TimeUnit::ms: return 1e3;
        case TimeUnit::s: return 1.0;
    }
    return 1e9;
}

}  // namespace

std::string_view time_unit_name(TimeUnit unit) {
    switch (unit) {
        case TimeUnit::ns: return "ns";
        case TimeUnit::us: return "us";
        case TimeUnit::ms: return "ms";
        case TimeUnit::s: return "s";
    }
    return "ns";
}

std::optional<TimeUnit> parse_time_unit(std::string_view name) {
    for (const TimeUnit unit : {TimeUnit::ns, TimeUnit::us, TimeUnit::ms, TimeUnit::s}) {
        if (name == time_unit_name(unit)) return unit;
    }
    return std::nullopt;
}

TimeUnit time_unit_for(double seconds) {
    if (!(seconds >= 1e-6)) return TimeUnit::ns;  // NaN too
    if (seconds < 1e-3) return TimeUnit::us;
    if (seconds < 1.0) return TimeUnit::ms;
    return TimeUnit::s;
}

std::string dump_document(const nlohmann::json& document) {
    return document.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

namespace {

// A block's counts, as read (whole block): {"context-switches": 0, "cycles": 1.2e6, ...};
// null for a count the PMU never ran in that block.
json block_counts(const BlockCounters& counters, std::size_t block) {
    json out = json::object();
    for (std::size_t c = 0; c < counters.names.size(); ++c) {
        const double v = counters.values[c][block];
        out[counters.names[c]] = std::isfinite(v) ? json(v) : json(nullptr);
    }
    return out;
}

// The counters' summary on a case's median entry: the median per call of each, how many
// blocks lost their core, and the counters the kernel refused.
void add_counter_summary(json& entry, const Measurement& m) {
    const BlockCounters& counters = m.counters();
    if (counters.empty() && counters.unavailable.empty()) return;
    json per_call = json::object();
    for (std::size_t c = 0; c < counters.names.size(); ++c) {
        std::vector<double> known;
        for (std::size_t b = 0; b < counters.values[c].size(); ++b) {
            const double v = counters.values[c][b];
            if (std::isfinite(v)) known.push_back(v / counters.calls_in(b, m.number_per_run()));
        }
        per_call[counters.names[c]] = known.empty() ? json(nullptr) : json(stats::median(known));
    }
    if (!counters.empty()) entry["vitals_counters_per_call"] = std::move(per_call);
    if (const std::optional<Disturbance> d = m.disturbance()) entry["vitals_disturbed_blocks"] = d->blocks;
    if (!counters.unavailable.empty()) entry["vitals_counters_unavailable"] = counters.unavailable;
}

// A measured case as one entry (JsonLayout::medians): Google Benchmark's fields of one
// repetition, holding the median per call, and the rest as vitals_ fields.
json median_entry(json entry, const CaseResult& result, TimeUnit unit) {
    const Measurement& m = *result.measurement;
    const double per_second = units_per_second(unit);
    const std::vector<double> cpu = m.cpu_times();
    entry["run_type"] = "iteration";
    entry["repetitions"] = 1;
    entry["repetition_index"] = 0;
    entry["threads"] = 1;
    entry["iterations"] = m.number_per_run();
    entry["real_time"] = m.median() * per_second;
    entry["cpu_time"] = (cpu.empty() ? m.median() : stats::median(cpu)) * per_second;
    entry["time_unit"] = time_unit_name(unit);
    entry["vitals_blocks"] = m.times().size();
    entry["vitals_processes"] = std::max<std::size_t>(result.per_process.size(), 1);
    entry["vitals_p25"] = m.p25() * per_second;
    entry["vitals_p75"] = m.p75() * per_second;
    add_counter_summary(entry, m);
    // The run's own interval when it stopped on one; else that of the blocks' median.
    std::optional<MedianInterval> interval = m.median_interval();
    if (!interval) {
        std::vector<double> sorted = m.times();
        std::sort(sorted.begin(), sorted.end());
        if (const auto ranks = stats::median_interval_ranks(sorted.size())) {
            interval = MedianInterval{sorted[ranks->lower], sorted[ranks->upper], ranks->coverage};
        }
    }
    if (interval) {
        entry["vitals_median_ci_low"] = interval->low * per_second;
        entry["vitals_median_ci_high"] = interval->high * per_second;
        entry["vitals_median_ci_confidence"] = interval->confidence;
    }
    return entry;
}

}  // namespace

std::string_view json_layout_name(JsonLayout layout) {
    switch (layout) {
        case JsonLayout::blocks: return "blocks";
        case JsonLayout::aggregates: return "aggregates";
        case JsonLayout::medians: return "medians";
    }
    return "blocks";
}

std::optional<JsonLayout> parse_json_layout(std::string_view name) {
    for (const JsonLayout layout : {JsonLayout::blocks, JsonLayout::aggregates, JsonLayout::medians}) {
        if (json_layout_name(layout) == name) return layout;
    }
    return std::nullopt;
}

std::string results_to_json(const std::vector<CaseResult>& results, const std::string& executable,
                            const RunContext& run, const ResultsLayout& layout) {
    json benchmarks = json::array();
    json not_measured = json::array();  // with JsonLayout::medians
    int family_index = 0;
    for (const CaseResult& result : results) {
        const auto base = [&](const std::string& name) {
            json entry = {{"name", name},
                          {"family_index", family_index},
                          {"per_family_instance_index", 0},
                          {"run_name", result.name}};
            return entry;
        };
        // Google Benchmark's shape for a run that did not happen (SkipWithError); vitals
        // adds the process it failed in, where the case ran in several.
        const auto failure_entry = [&](const std::string& message, std::optional<int> process) {
            json entry = base(result.name);
            entry["run_type"] = "iteration";
            entry["repetitions"] = 0;
            entry["repetition_index"] = 0;
            entry["threads"] = 1;
            entry["iterations"] = 0;
            entry["real_time"] = 0.0;
            entry["cpu_time"] = 0.0;
            entry["time_unit"] = time_unit_name(layout.time_unit.value_or(TimeUnit::ns));
            entry["error_occurred"] = true;
            entry["error_message"] = message;
            entry["vitals_status"] = "failed";
            // Never measured, so no task was described: the fields every entry has, empty.
            for (const char* key : {"label", "sub_label", "description", "env"}) entry[key] = "";
            entry["num_threads"] = 1;
            if (process) entry["vitals_process"] = *process;
            return entry;
        };
        const auto push_process_failures = [&] {
            for (const CaseResult::ProcessFailure& f : result.failed_processes) {
                benchmarks.push_back(failure_entry(f.why, f.process));
            }
        };
        if (!result.measurement && layout.entries == JsonLayout::medians) {
            not_measured.push_back({{"name", result.name},
                                    {"vitals_status", result.skipped.empty() ? "failed" : "skipped"},
                                    {"error_message", result.skipped.empty() ? result.error : "skipped: " + result.skipped}});
            continue;
        }
        if (!result.measurement && !result.failed_processes.empty()) {
            push_process_failures();
            ++family_index;
            continue;
        }
        if (!result.measurement) {
            json entry = failure_entry(result.skipped.empty() ? result.error : "skipped: " + result.skipped, std::nullopt);
            if (!result.skipped.empty()) entry["vitals_status"] = "skipped";
            benchmarks.push_back(std::move(entry));
            ++family_index;
            continue;
        }
        const Measurement& m = *result.measurement;
        const TaskSpec& task = m.task_spec();
        const TimeUnit unit = layout.time_unit.value_or(time_unit_for(m.median()));
        const double per_second = units_per_second(unit);
        const WorkPerCall& work = task.work;
        // `seconds`: the entry's time per call, for Google Benchmark's rate counters
        // (bytes_per_second, items_per_second) and ours (flops_per_second); none for
        // aggregates that are no time (stddev, cv, iqr).
        const auto describe = [&](json& entry, std::optional<double> seconds) {
            entry["label"] = task.label;
            entry["sub_label"] = task.sub_label;
            entry["description"] = task.description;
            entry["env"] = task.env;
            entry["num_threads"] = task.num_threads;
            if (task.cold) entry["vitals_cache"] = "cold";
            if (result.instructions) entry["instructions"] = *result.instructions;
            if (!work.stated()) return;
            if (seconds && *seconds > 0) {
                if (work.bytes > 0) entry["bytes_per_second"] = work.bytes / *seconds;
                if (work.items > 0) entry["items_per_second"] = work.items / *seconds;
                if (work.flops > 0) entry["flops_per_second"] = work.flops / *seconds;
            }
            entry["vitals_work"] = {{"bytes", work.bytes}, {"flops", work.flops}, {"items", work.items},
                                    {"working_set", work.working_set}, {"f64", work.f64}};
        };
        const std::vector<double> times = m.times();
        const std::vector<double> cpu = m.cpu_times();
        const auto repetitions = static_cast<long>(times.size());
        // Blocks as measured: one process's, or each process's in turn, tagged with it.
        const bool by_process = !result.per_process.empty();
        const std::span<const Measurement> measured = by_process ? std::span<const Measurement>(result.per_process)
                                                                 : std::span<const Measurement>(&m, 1);
        std::size_t k = 0;
        if (layout.entries == JsonLayout::medians) {
            benchmarks.push_back(median_entry(base(result.name), result, unit));
            describe(benchmarks.back(), m.median());
            ++family_index;
            continue;
        }
        for (std::size_t p = 0; p < measured.size() && layout.entries == JsonLayout::blocks; ++p) {
            const std::vector<double> block_times = measured[p].times();
            const std::vector<double> block_cpu = measured[p].cpu_times();
            for (std::size_t b = 0; b < block_times.size(); ++b, ++k) {
                json entry = base(result.name);
                entry["run_type"] = "iteration";
                entry["repetitions"] = repetitions;
                entry["repetition_index"] = k;
                entry["threads"] = 1;
                entry["iterations"] = measured[p].number_per_run();
                entry["real_time"] = block_times[b] * per_second;
                entry["cpu_time"] = (block_cpu.empty() ? block_times[b] : block_cpu[b]) * per_second;
                entry["time_unit"] = time_unit_name(unit);
                describe(entry, block_times[b]);
                if (!measured[p].counters().empty()) entry["vitals_counters"] = block_counts(measured[p].counters(), b);
                if (by_process) entry["vitals_process"] = result.process_of(p);
                benchmarks.push_back(std::move(entry));
            }
        }
        if (layout.entries == JsonLayout::blocks) push_process_failures();
        const std::vector<double>& cpu_or_wall = cpu.empty() ? times : cpu;
        const auto sample_stddev = [](const std::vector<double>& v) {
            return v.size() < 2 ? 0.0 : stats::stddev_sample(v);  // Google Benchmark reports 0 for one repetition
        };
        struct Aggregate {
            const char* name;
            const char* unit;
            double real, cpu;
        };
        const double real_mean = stats::mean(times), cpu_mean = stats::mean(cpu_or_wall);
        const double real_std = sample_stddev(times), cpu_std = sample_stddev(cpu_or_wall);
        const Aggregate aggregates[] = {
            {"mean", "time", real_mean, cpu_mean},
            {"median", "time", m.median(), stats::median(cpu_or_wall)},
            {"stddev", "time", real_std, cpu_std},
            {"cv", "percentage", real_mean > 0 ? real_std / real_mean : 0.0, cpu_mean > 0 ? cpu_std / cpu_mean : 0.0},
            {"p25", "time", m.p25(), stats::quantile(cpu_or_wall, 0.25)},
            {"p75", "time", m.p75(), stats::quantile(cpu_or_wall, 0.75)},
            {"iqr", "time", m.iqr(), stats::iqr(cpu_or_wall)},
        };
        for (const Aggregate& a : aggregates) {
            const bool is_time = std::string_view(a.unit) == "time";
            json entry = base(result.name + "_" + a.name);
            entry["run_type"] = "aggregate";
            entry["repetitions"] = repetitions;
            entry["threads"] = 1;
            entry["aggregate_name"] = a.name;
            entry["aggregate_unit"] = a.unit;
            entry["iterations"] = repetitions;
            entry["real_time"] = is_time ? a.real * per_second : a.real;
            entry["cpu_time"] = is_time ? a.cpu * per_second : a.cpu;
            entry["time_unit"] = time_unit_name(unit);
            const std::string_view aggregate(a.name);
            const bool rate = aggregate == "mean" || aggregate == "median" || aggregate == "p25" || aggregate == "p75";
            describe(entry, rate ? std::optional<double>(a.real) : std::nullopt);
            if (by_process) entry["vitals_processes"] = result.per_process.size();
            if (!result.failed_processes.empty()) {
                json failed = json::array();
                for (const CaseResult::ProcessFailure& f : result.failed_processes) {
                    failed.push_back({{"process", f.process}, {"why", f.why}});
                }
                entry["vitals_failed_processes"] = std::move(failed);
            }
            if (aggregate == "median") {
                // Blocks stopped or descheduled, each judged within its own process.
                std::size_t stopped = 0;
                for (const Measurement& p : measured) stopped += p.stopped_blocks();
                entry["vitals_stopped_blocks"] = stopped;
                add_counter_summary(entry, m);

                const auto placed = std::find_if(run.roofline.begin(), run.roofline.end(),
                                                 [&](const RooflineRecord& r) { return r.name == result.name; });
                if (placed != run.roofline.end()) {
                    const RooflinePoint& p = placed->point;
                    entry["vitals_roofline"] = {{"intensity", p.intensity}, {"achieved", p.achieved}, {"bound", p.bound},
                                                {"share", p.share}, {"verdict", p.verdict}};
                }
            }
            if (std::string_view(a.name) == "median" && m.median_interval()) {  // a precision-driven run
                entry["vitals_median_ci_low"] = m.median_interval()->low * per_second;
                entry["vitals_median_ci_high"] = m.median_interval()->high * per_second;
                entry["vitals_median_ci_confidence"] = m.median_interval()->confidence;
            }
            benchmarks.push_back(std::move(entry));
        }
        ++family_index;
    }
    json document = {{"context", context(executable, run)}, {"benchmarks", std::move(benchmarks)}};
    if (layout.entries != JsonLayout::blocks) document["context"]["vitals_json_layout"] = json_layout_name(layout.entries);
    if (!not_measured.empty()) document["context"]["vitals_not_measured"] = std::move(not_measured);
    if (run.ceilings) {
        json bandwidth = json::array();
        for (const auto& [level, rate] : run.ceilings->bandwidth) bandwidth.push_back({{"level", level}, {"bytes_per_second", rate}});
        document["context"]["vitals_machine"] = {{"cpu_model", run.ceilings->cpu_model},
                                                 {"peak_f32_flops", run.ceilings->peak_f32},
                                                 {"peak_f64_flops", run.ceilings->peak_f64},
                                                 {"bandwidth", bandwidth}};
    }
    if (!run.aslr.empty()) document["context"]["vitals_aslr"] = run.aslr;
    if (!run.trace_dir.empty()) {  // run --trace-dir: where the cases' traces are
        document["context"]["vitals_trace_dir"] = run.trace_dir;
    }
    if (run.incomplete) {  // marked, so that no one mistakes it for a whole run
        document["context"]["vitals_incomplete"] = true;
        document["context"]["vitals_cases_planned"] = run.cases_planned;
    }
    return dump_document(document);
}

std::string ab_to_json(const AbResult& r, const std::string& executable) {
    json alternatives = json::array();
    for (const AbAlternative& a : r.alternatives) {
        alternatives.push_back({{"name", a.name},
                                {"number_per_block", a.number_per_block},
                                {"median_seconds_per_call", a.median},
                                {"ratio", a.ratio},
                                {"ratio_interval", a.ratio_interval ? json::array({a.ratio_interval->first, a.ratio_interval->second})
                                                                    : json(nullptr)},
                                {"p_value", a.p_value},
                                {"verdict", stats::verdict_name(a.verdict)}});
    }
    json rounds = json::array();
    for (const AbRound& round : r.rounds) rounds.push_back({{"reversed", round.reversed}, {"block_seconds", round.block_seconds}});
    RunContext run;
    run.incomplete = r.stopped_by == AbStop::interrupted || r.stopped_by == AbStop::failed;
    json document = {{"context", context(executable, run)},
                     {"vitals_ab",
                      {{"stopped_by", ab_stop_name(r.stopped_by)},
                       {"complete", !run.incomplete},
                       {"wall_seconds", r.wall_seconds},
                       {"precision", r.precision},
                       {"alpha", r.alpha},
                       {"noise_floor", r.noise_floor},
                       {"alternatives", std::move(alternatives)},
                       {"rounds", std::move(rounds)}}}};
    if (run.incomplete) document["context"]["vitals_incomplete"] = true;
    if (r.failure) {
        const std::size_t i = r.failure->alternative;
        document["vitals_ab"]["failure"] = {{"alternative", i < r.alternatives.size() ? r.alternatives[i].name : ""},
                                            {"message", r.failure->message}};
    }
    return dump_document(document);
}

std::vector<CaseSamples> samples_of(const std::vector<CaseResult>& results) {
    std::vector<CaseSamples> out;
    for (const CaseResult& r : results) {
        if (r.measurement) {
            CaseSamples samples{r.name, r.measurement->times(), r.measurement->label(), r.measurement->sub_label(),
                                r.measurement->description(), r.instructions, {}};
            samples.cold = r.measurement->task_spec().cold;
            for (std::size_t p = 0; p < r.per_process.size(); ++p) {
                samples.process.insert(samples.process.end(), r.per_process[p].raw_times().size(), r.process_of(p));
            }
            samples.process.resize(samples.seconds.size(), 0);
            out.push_back(std::move(samples));
        }
    }
    return out;
}

}  // namespace vitals
