// Results files read back: ours and Google Benchmark's, and the measurements of run
// --processes workers (merge lives in results_merge.cpp). Each file is walked entry by entry
// (results_document.hpp): memory is the file's size plus one entry.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <unordered_map>

#include "entry_fields.hpp"
#include "json_document.hpp"
#include "results_document.hpp"
#include "vitals/results.hpp"
#include "vitals/stats.hpp"

namespace vitals {
namespace {

WorkPerCall read_work(element w, const std::string& path, std::string_view name) {
    const Fields f(w, path, fmt::format("case '{}'", name), "vitals_work.");
    WorkPerCall work;
    work.bytes = f.non_negative("bytes", 0.0);
    work.flops = f.non_negative("flops", 0.0);
    work.items = f.non_negative("items", 0.0);
    work.working_set = f.non_negative("working_set", 0.0);
    const std::optional<element> f64 = f.get("f64");
    work.f64 = f64 && f64->type() == element_type::BOOL && bool(*f64);
    return work;
}

RooflinePoint read_roofline(element r, const std::string& path, std::string_view name) {
    const Fields f(r, path, fmt::format("case '{}'", name), "vitals_roofline.");
    return {f.non_negative("intensity"), f.non_negative("achieved"), f.non_negative("bound"), f.non_negative("share"),
            std::string(f.text("verdict"))};
}

MachineCeilings read_ceilings(element m, const std::string& path) {
    const Fields f(m, path, "the context", "vitals_machine.");
    MachineCeilings c;
    c.cpu_model = f.text("cpu_model");
    c.peak_f32 = f.non_negative("peak_f32_flops");
    c.peak_f64 = f.non_negative("peak_f64_flops");
    if (const std::optional<element> levels = f.get("bandwidth"); levels && levels->type() == element_type::ARRAY) {
        for (const element b : simdjson::dom::array(*levels)) {
            if (b.type() != element_type::OBJECT) continue;
            const Fields level(b, path, "the context", "vitals_machine.bandwidth[].");
            c.bandwidth.emplace_back(level.text("level"), level.non_negative("bytes_per_second"));
        }
    }
    return c;
}

// What a file's context says of its run.
void read_context(element context, const std::string& path, ResultsFile& file) {
    if (context.type() != element_type::OBJECT) return;
    const Fields f(context, path, "the context");
    file.incomplete = f.flag("vitals_incomplete");
    file.written_by_vitals = f.has("vitals_schema_version");
    if (const std::optional<element> dir = f.get("vitals_trace_dir"); dir && dir->type() == element_type::STRING) {
        file.trace_dir = std::string(std::string_view(*dir));
    }
    if (const std::optional<element> planned = f.get("vitals_cases_planned")) {
        file.cases_planned = whole_number<std::size_t>(*planned).value_or(0);
    }
    if (const std::optional<element> machine = f.get("vitals_machine")) file.ceilings = read_ceilings(*machine, path);
}

// Per case, its median and mean aggregates in seconds, and of how many repetitions: the
// stand-in for a case of an aggregates-only file.
struct Aggregates {
    std::optional<double> median, mean;
    std::size_t repetitions = 0;
};

// One case's blocks are all warm or all cold: mixed, their median would be of neither.
[[noreturn]] void throw_mixed_caches(const std::string& path, std::string_view name) {
    throw ResultsFileError(fmt::format("'{}': case '{}' has blocks measured with cold caches and blocks measured warm; "
                                       "give the cold entries a name of their own, or keep them in a file of their own",
                                       path, name));
}

// One entry of "benchmarks" into the case it belongs to.
void read_entry(const Fields& b, std::string_view name, const std::string& path, CaseSamples& c, Aggregates& aggregates) {
    if (b.has("vitals_work")) c.work = read_work(*b.get("vitals_work"), path, name);
    if (b.has("vitals_roofline")) c.roofline = read_roofline(*b.get("vitals_roofline"), path, name);
    const bool cold = b.text("vitals_cache") == "cold";
    if (const std::string_view type = b.text("run_type", "iteration"); type != "iteration") {
        if (cold && c.seconds.empty()) c.cold = true;  // a file of aggregates only
        const std::string_view aggregate = b.text("aggregate_name");
        if (type != "aggregate" || b.text("aggregate_unit", "time") != "time" || (aggregate != "median" && aggregate != "mean") ||
            b.flag("error_occurred")) {
            return;
        }
        const double value = b.non_negative("real_time");
        (aggregate == "median" ? aggregates.median : aggregates.mean) = value * seconds_per_unit(b.text("time_unit", "ns"), path);
        if (const std::optional<element> repetitions = b.get("repetitions")) {
            aggregates.repetitions = whole_number<std::size_t>(*repetitions).value_or(0);
        }
        return;
    }
    if (b.flag("error_occurred")) {  // a case that did not run: kept, with why
        const std::string_view message = b.text("error_message");
        if (const std::optional<element> process = b.get("vitals_process")) {
            if (const std::optional<std::size_t> index = whole_number<std::size_t>(*process)) {
                c.failed_processes.push_back(fmt::format("process {}: {}", *index + 1, message));
            }
        }
        if (c.seconds.empty()) c.not_measured = message.rfind("skipped: ", 0) == 0 ? std::string(message) : fmt::format("failed: {}", message);
        return;
    }
    if (!c.seconds.empty() && cold != c.cold) throw_mixed_caches(path, name);
    c.cold = cold;
    c.not_measured.clear();
    c.seconds.push_back(b.non_negative("real_time") * seconds_per_unit(b.text("time_unit", "ns"), path));
    const std::optional<element> process = b.get("vitals_process");
    const std::optional<int> index = process ? whole_number<int>(*process) : std::optional<int>(0);
    if (!index || *index < 0 || *index > 1'000'000) throw_wrong_type(path, b.where("vitals_process"), "a process index", *process);
    c.process.push_back(*index);
    if (const std::optional<double> instructions = b.optional_number("instructions")) c.instructions = instructions;
    // A file of --json-layout medians: the entry stands for the median of this many blocks.
    if (const std::optional<element> blocks = b.get("vitals_blocks")) {
        c.aggregate_of = std::max<std::size_t>(whole_number<std::size_t>(*blocks).value_or(1), 1);
    }
}

ResultsFile parse_padded(std::string_view text, const std::string& path) {
    ResultsFile file;
    std::vector<CaseSamples>& cases = file.cases;
    std::unordered_map<std::string, std::size_t> index;
    std::vector<Aggregates> aggregates;
    walk_results_document(
        text, path,
        [&](std::string_view key, const JsonPiece& member) {
            if (key != "context") return;
            file.context_json = std::string(member.text);
            read_context(member.value, path, file);
        },
        [&](std::size_t entry, const JsonPiece& piece) {
            Fields b(piece.value, path, fmt::format("benchmark entry {}", entry));
            const std::string_view name = entry_name(b, path, entry);
            b.name_owner(fmt::format("case '{}'", name));
            auto [it, added] = index.try_emplace(std::string(name), cases.size());
            if (added) {
                cases.push_back({std::string(name), {}, std::string(b.text("label")), std::string(b.text("sub_label")),
                                 std::string(b.text("description"))});
                aggregates.emplace_back();
            }
            read_entry(b, name, path, cases[it->second], aggregates[it->second]);
        });
    for (std::size_t k = 0; k < cases.size(); ++k) {  // cases with aggregates only
        CaseSamples& c = cases[k];
        const Aggregates& a = aggregates[k];
        if (!c.seconds.empty() || (!a.median && !a.mean)) continue;
        c.seconds.push_back(a.median ? *a.median : *a.mean);
        c.process.push_back(0);
        c.aggregate_of = std::max<std::size_t>(a.repetitions, 1);
        c.not_measured.clear();
    }
    return file;
}

}  // namespace

const CaseSamples* find_samples(const std::vector<CaseSamples>& cases, std::string_view name) {
    for (const CaseSamples& c : cases) {
        if (c.name == name) return &c;
    }
    return nullptr;
}

std::vector<CaseSamples> parse_results(std::string_view text, const std::string& path) {
    return parse_results_file(text, path).cases;
}

ResultsFile read_results_file(const std::string& path) {
    const simdjson::padded_string text = read_results_text(path);
    return parse_padded(text, path);
}

ResultsFile parse_results_file(std::string_view text, const std::string& path) {
    const simdjson::padded_string padded(text);
    return parse_padded(padded, path);
}

std::size_t CaseSamples::process_count() const {
    std::vector<int> seen = process;
    std::sort(seen.begin(), seen.end());
    return static_cast<std::size_t>(std::unique(seen.begin(), seen.end()) - seen.begin());
}

std::vector<double> CaseSamples::process_medians() const {
    std::map<int, std::vector<double>> by_process;
    for (std::size_t k = 0; k < seconds.size(); ++k) by_process[k < process.size() ? process[k] : 0].push_back(seconds[k]);
    std::vector<double> out;
    for (const auto& [p, times] : by_process) out.push_back(stats::median(times));
    return out;
}

std::vector<CaseResult> read_case_results(const std::string& path) {
    const simdjson::padded_string text = read_results_text(path);
    struct Blocks {
        CaseResult result;
        std::int64_t number_per_run = 0;
        std::vector<double> raw, cpu;
        TaskSpec task;
        BlockCounters counters;
        bool counters_whole = true;  // every block has the same counters
        std::vector<double> calls;   // each block's iterations (processes may differ in it)
    };
    std::vector<Blocks> cases;
    // A block's vitals_counters, in the order the first block of the case gave them.
    const auto read_counters = [&](const Fields& b, Blocks& c) {
        const std::optional<element> counts = b.get("vitals_counters");
        const bool first = c.raw.size() == 1;
        if (!counts || counts->type() != element_type::OBJECT) {
            if (!first && !c.counters.names.empty()) c.counters_whole = false;
            return;
        }
        std::size_t k = 0;
        for (const auto field : simdjson::dom::object(*counts)) {
            const std::string_view name = field.key;
            double value = std::numeric_limits<double>::quiet_NaN();  // null: the PMU never ran in the block
            if (field.value.is_number()) {
                value = double(field.value.get_double());
                if (!std::isfinite(value) || value < 0) throw_wrong_type(path, b.where("vitals_counters"), "counts >= 0", field.value);
            } else if (!field.value.is_null()) {
                throw_wrong_type(path, b.where("vitals_counters"), "counts >= 0", field.value);
            }
            if (first) {
                c.counters.names.emplace_back(name);
                c.counters.values.emplace_back();
            } else if (k >= c.counters.names.size() || c.counters.names[k] != name) {
                c.counters_whole = false;
                return;
            }
            c.counters.values[k].push_back(value);
            ++k;
        }
        if (k != c.counters.names.size()) c.counters_whole = false;
    };
    walk_results_document(
        text, path, [](std::string_view, const JsonPiece&) {},
        [&](std::size_t entry, const JsonPiece& piece) {
            Fields b(piece.value, path, fmt::format("benchmark entry {}", entry));
            if (b.text("run_type", "iteration") != "iteration") {
                // The counters the kernel refused, on the case's median.
                const std::optional<element> refused = b.get("vitals_counters_unavailable");
                if (!cases.empty() && refused && refused->type() == element_type::ARRAY) {
                    for (const element why : simdjson::dom::array(*refused)) {
                        if (why.type() == element_type::STRING) cases.back().counters.unavailable.emplace_back(std::string_view(why));
                    }
                }
                return;
            }
            const std::string name(entry_name(b, path, entry));
            b.name_owner(fmt::format("case '{}'", name));
            if (cases.empty() || cases.back().result.name != name) cases.push_back({CaseResult{name, std::nullopt, "", ""}, 0, {}, {}, {}, {}, true});
            Blocks& c = cases.back();
            if (b.flag("error_occurred")) {
                const std::string message(b.text("error_message"));
                if (b.text("vitals_status") == "skipped") {
                    c.result.skipped = message.rfind("skipped: ", 0) == 0 ? message.substr(9) : message;
                } else {
                    c.result.error = message;
                }
                return;
            }
            const std::optional<element> iterations = b.get("iterations");
            const std::optional<std::int64_t> number = iterations ? whole_number<std::int64_t>(*iterations) : std::nullopt;
            if (!number || *number < 1) {
                if (!iterations) throw ResultsFileError(fmt::format("'{}': case '{}' has no iterations", path, name));
                throw_wrong_type(path, b.where("iterations"), "a whole number >= 1", *iterations);
            }
            c.number_per_run = *number;
            c.calls.push_back(static_cast<double>(*number));
            const std::optional<element> threads_field = b.get("num_threads");
            const std::optional<int> threads = threads_field ? whole_number<int>(*threads_field) : std::optional<int>(1);
            if (!threads || *threads < 1) {
                throw_wrong_type(path, b.where("num_threads"), "a whole number >= 1", *threads_field);
            }
            const double scale = seconds_per_unit(b.text("time_unit", "ns"), path) * static_cast<double>(c.number_per_run);
            const bool cold = b.text("vitals_cache") == "cold";
            if (!c.raw.empty() && cold != c.task.cold) throw_mixed_caches(path, name);
            c.raw.push_back(b.non_negative("real_time") * scale);
            c.cpu.push_back(b.non_negative("cpu_time") * scale);
            read_counters(b, c);
            c.task = TaskSpec{"", "", "", std::string(b.text("label")), std::string(b.text("sub_label")),
                              std::string(b.text("description")), std::string(b.text("env")), *threads,
                              b.has("vitals_work") ? read_work(*b.get("vitals_work"), path, name) : WorkPerCall{},
                              cold};
            if (const std::optional<double> instructions = b.optional_number("instructions")) c.result.instructions = instructions;
        });
    std::vector<CaseResult> out;
    try {
        for (Blocks& c : cases) {
            if (c.raw.empty()) {
                out.push_back(std::move(c.result));
                continue;
            }
            if (!c.counters_whole) {
                c.counters.names.clear();
                c.counters.values.clear();
            }
            // Blocks of different sizes (processes that sized theirs apart): times per
            // call, and counts as read with each block's calls beside them, as a merge has.
            if (std::any_of(c.calls.begin(), c.calls.end(), [&](double n) { return n != c.calls.front(); })) {
                for (std::size_t b = 0; b < c.raw.size(); ++b) {
                    c.raw[b] /= c.calls[b];
                    c.cpu[b] /= c.calls[b];
                }
                c.number_per_run = 1;
                if (!c.counters.names.empty()) c.counters.block_calls = c.calls;
            }
            Measurement m(c.number_per_run, std::move(c.raw), std::move(c.task), std::move(c.cpu));
            c.result.measurement.emplace(c.counters.empty() && c.counters.unavailable.empty() ? std::move(m)
                                                                                             : m.with_counters(std::move(c.counters)));
            out.push_back(std::move(c.result));
        }
    } catch (const std::invalid_argument& e) {
        throw ResultsFileError(fmt::format("'{}' is not a results file vitals wrote: {}", path, e.what()));
    }
    return out;
}

}  // namespace vitals
