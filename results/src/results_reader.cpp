// Results files read back: ours and Google Benchmark's, merged shards, and the
// measurements of run --processes workers.
#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <unordered_map>

#include "json_document.hpp"
#include "vitals/checked_number.hpp"
#include "vitals/json_depth.hpp"
#include "vitals/results.hpp"
#include "vitals/stats.hpp"

namespace vitals {
namespace {

using nlohmann::json;

std::string read_whole_file(const std::string& path) {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) {
        throw ResultsFileError(fmt::format("cannot read '{}': it is a folder; give a results file", path));
    }
    // Devices and pipes could be endless (/dev/zero); files are read only up to a size no
    // results file reaches.
    constexpr std::uintmax_t kMaxBytes = std::uintmax_t{1} << 30;
    const std::filesystem::file_status status = std::filesystem::status(path, ec);
    if (!ec && std::filesystem::exists(status) && !std::filesystem::is_regular_file(status)) {
        throw ResultsFileError(fmt::format("cannot read '{}': it is not a regular file; give a results file", path));
    }
    if (const std::uintmax_t size = std::filesystem::file_size(path, ec); !ec && size > kMaxBytes) {
        throw ResultsFileError(fmt::format("cannot read '{}': {} bytes is more than any results file (1 GiB)", path, size));
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) throw ResultsFileError(fmt::format("cannot read '{}': {}", path, std::strerror(errno)));
    try {
        return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    } catch (const std::exception& e) {
        throw ResultsFileError(fmt::format("cannot read '{}': {}", path, e.what()));
    }
}

json parse_text(std::string_view text, const std::string& path) {
    // Results files are shallow; a deeper document is refused before it can exhaust the
    // stack of whoever walks it.
    constexpr std::size_t kMaxDepth = 32;
    if (json_nesting_depth(text) > kMaxDepth) {
        throw ResultsFileError(
            fmt::format("'{}' nests JSON deeper than {} levels; results files are not that deep", path, kMaxDepth));
    }
    try {
        return json::parse(text);
    } catch (const json::exception& e) {  // parse errors, and numbers too large for a double
        throw ResultsFileError(fmt::format("'{}' is not JSON ({}); give a file written by --json or by "
                                           "Google Benchmark's --benchmark_out",
                                           path, e.what()));
    }
}

json parse_file(const std::string& path) {
    const std::string text = read_whole_file(path);
    return parse_text(text, path);
}

const json& benchmarks_of(const json& doc, const std::string& path) {
    if (!doc.is_object() || !doc.contains("benchmarks") || !doc.at("benchmarks").is_array()) {
        throw ResultsFileError(fmt::format("'{}' has no \"benchmarks\" list; expected Google Benchmark's JSON layout", path));
    }
    return doc.at("benchmarks");
}

double seconds_per_unit(const std::string& unit, const std::string& path) {
    if (unit == "ns") return 1e-9;
    if (unit == "us") return 1e-6;
    if (unit == "ms") return 1e-3;
    if (unit == "s") return 1.0;
    throw ResultsFileError(fmt::format("'{}' uses an unknown time_unit '{}' (expected ns, us, ms or s)", path, unit));
}

// A number read from an outside file: finite and >= 0, or an error naming where.
double non_negative(const json& value, const std::string& path, const std::string& where) {
    if (!value.is_number() || !std::isfinite(value.get<double>()) || value.get<double>() < 0) {
        throw ResultsFileError(fmt::format("'{}': {} is {}; expected a finite number >= 0", path, where,
                                           value.dump(-1, ' ', false, json::error_handler_t::replace)));
    }
    return value.get<double>();
}

WorkPerCall read_work(const json& w, const std::string& path, const std::string& name) {
    WorkPerCall work;
    if (!w.is_object()) throw ResultsFileError(fmt::format("'{}': the vitals_work of case '{}' is not an object", path, name));
    const auto field = [&](const char* key) {
        return w.contains(key) ? non_negative(w.at(key), path, fmt::format("vitals_work.{} of case '{}'", key, name)) : 0.0;
    };
    work.bytes = field("bytes");
    work.flops = field("flops");
    work.items = field("items");
    work.working_set = field("working_set");
    work.f64 = w.contains("f64") && w.at("f64").is_boolean() && w.at("f64").get<bool>();
    return work;
}

RooflinePoint read_roofline(const json& r, const std::string& path, const std::string& name) {
    if (!r.is_object()) throw ResultsFileError(fmt::format("'{}': the vitals_roofline of case '{}' is not an object", path, name));
    const auto field = [&](const char* key) {
        return non_negative(r.contains(key) ? r.at(key) : json(), path, fmt::format("vitals_roofline.{} of case '{}'", key, name));
    };
    RooflinePoint p{field("intensity"), field("achieved"), field("bound"), field("share"), r.value("verdict", "")};
    return p;
}

MachineCeilings read_ceilings(const json& m, const std::string& path) {
    if (!m.is_object()) throw ResultsFileError(fmt::format("'{}': context.vitals_machine is not an object", path));
    MachineCeilings c;
    c.cpu_model = m.value("cpu_model", "");
    c.peak_f32 = non_negative(m.contains("peak_f32_flops") ? m.at("peak_f32_flops") : json(), path, "vitals_machine.peak_f32_flops");
    c.peak_f64 = non_negative(m.contains("peak_f64_flops") ? m.at("peak_f64_flops") : json(), path, "vitals_machine.peak_f64_flops");
    if (m.contains("bandwidth") && m.at("bandwidth").is_array()) {
        for (const json& b : m.at("bandwidth")) {
            if (!b.is_object()) continue;
            c.bandwidth.emplace_back(b.value("level", ""), non_negative(b.contains("bytes_per_second") ? b.at("bytes_per_second") : json(),
                                                                        path, "vitals_machine.bandwidth"));
        }
    }
    return c;
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
    const std::string text = read_whole_file(path);
    return parse_results_file(text, path);
}

ResultsFile parse_results_file(std::string_view text, const std::string& path) {
    const json doc = parse_text(text, path);
    ResultsFile file;
    std::vector<CaseSamples>& cases = file.cases;
    std::unordered_map<std::string, std::size_t> index;
    try {
        if (doc.is_object() && doc.contains("context") && doc.at("context").is_object()) {
            const json& context = doc.at("context");
            file.incomplete = context.value("vitals_incomplete", false);
            if (context.contains("vitals_trace_dir") && context.at("vitals_trace_dir").is_string()) {
                file.trace_dir = context.at("vitals_trace_dir").get<std::string>();
            }
            if (context.contains("vitals_cases_planned") && context.at("vitals_cases_planned").is_number_unsigned()) {
                file.cases_planned = context.at("vitals_cases_planned").get<std::size_t>();
            }
        }
        // Per case, its median and mean aggregates in seconds, and of how many repetitions:
        // the stand-in for a case of an aggregates-only file.
        struct Aggregates {
            std::optional<double> median, mean;
            std::size_t repetitions = 0;
        };
        std::unordered_map<std::string, Aggregates> aggregates;
        for (const json& b : benchmarks_of(doc, path)) {
            const std::string name = b.contains("run_name") ? b.at("run_name").get<std::string>() : b.at("name").get<std::string>();
            if (name.empty()) throw ResultsFileError(fmt::format("'{}': a benchmark entry has an empty name", path));
            const auto [it, added] = index.try_emplace(name, cases.size());
            if (added) {
                cases.push_back({name, {}, b.value("label", ""), b.value("sub_label", ""), b.value("description", "")});
            }
            if (const std::string type = b.value("run_type", "iteration"); type != "iteration") {
                const std::string aggregate = b.value("aggregate_name", "");
                if (type != "aggregate" || b.value("aggregate_unit", "time") != "time" ||
                    (aggregate != "median" && aggregate != "mean") || b.value("error_occurred", false)) {
                    continue;
                }
                const double value = b.at("real_time").get<double>();
                if (!std::isfinite(value) || value < 0) {
                    throw ResultsFileError(fmt::format("'{}': the {} of case '{}' has a real_time of {}", path, aggregate, name, value));
                }
                Aggregates& a = aggregates[name];
                (aggregate == "median" ? a.median : a.mean) = value * seconds_per_unit(b.value("time_unit", "ns"), path);
                const json& repetitions = b.contains("repetitions") ? b.at("repetitions") : json(0);
                if (repetitions.is_number_unsigned()) a.repetitions = repetitions.get<std::size_t>();
                continue;
            }
            if (b.value("error_occurred", false)) {  // a case that did not run: kept, with why
                if (const json& process = b.contains("vitals_process") ? b.at("vitals_process") : json();
                    process.is_number_unsigned()) {
                    cases[it->second].failed_processes.push_back(
                        fmt::format("process {}: {}", process.get<std::size_t>() + 1, b.value("error_message", "")));
                }
                if (cases[it->second].seconds.empty()) {
                    const std::string message = b.value("error_message", "");
                    cases[it->second].not_measured =
                        message.rfind("skipped: ", 0) == 0 ? message : "failed: " + message;
                }
                continue;
            }
            cases[it->second].not_measured.clear();
            const double value = b.at("real_time").get<double>();
            if (!std::isfinite(value) || value < 0) {
                throw ResultsFileError(fmt::format("'{}': case '{}' has a real_time of {}", path, name, value));
            }
            cases[it->second].seconds.push_back(value * seconds_per_unit(b.value("time_unit", "ns"), path));
            const json& process = b.contains("vitals_process") ? b.at("vitals_process") : json(0);
            const std::optional<int> process_index = process.is_number_integer() ? checked_integer<int>(process) : std::nullopt;
            if (!process_index || *process_index < 0 || *process_index > 1'000'000) {
                throw ResultsFileError(fmt::format("'{}': case '{}' has a vitals_process of {}; expected a process index",
                                                   path, name, process.dump(-1, ' ', false, json::error_handler_t::replace)));
            }
            cases[it->second].process.push_back(*process_index);
            if (b.contains("instructions") && b.at("instructions").is_number()) {
                cases[it->second].instructions = b.at("instructions").get<double>();
            }
        }
        for (const json& b : benchmarks_of(doc, path)) {  // work and roofline, from any entry of a case
            if (!b.is_object() || (!b.contains("vitals_work") && !b.contains("vitals_roofline"))) continue;
            const std::string name = b.contains("run_name") ? b.at("run_name").get<std::string>() : b.at("name").get<std::string>();
            CaseSamples& c = cases[index.at(name)];
            if (b.contains("vitals_work")) c.work = read_work(b.at("vitals_work"), path, name);
            if (b.contains("vitals_roofline")) c.roofline = read_roofline(b.at("vitals_roofline"), path, name);
        }
        if (doc.is_object() && doc.contains("context") && doc.at("context").contains("vitals_machine")) {
            file.ceilings = read_ceilings(doc.at("context").at("vitals_machine"), path);
        }
        for (CaseSamples& c : cases) {  // cases with aggregates only
            const auto found = aggregates.find(c.name);
            if (!c.seconds.empty() || found == aggregates.end()) continue;
            const Aggregates& a = found->second;
            c.seconds.push_back(a.median ? *a.median : *a.mean);
            c.process.push_back(0);
            c.aggregate_of = std::max<std::size_t>(a.repetitions, 1);
            c.not_measured.clear();
        }
    } catch (const json::exception& e) {
        throw ResultsFileError(fmt::format("'{}' does not have Google Benchmark's layout: {}", path, e.what()));
    }
    return file;
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
    const json doc = parse_file(path);
    struct Blocks {
        CaseResult result;
        std::int64_t number_per_run = 0;
        std::vector<double> raw, cpu;
        TaskSpec task;
    };
    std::vector<Blocks> cases;
    try {
        for (const json& b : benchmarks_of(doc, path)) {
            if (b.value("run_type", "iteration") != "iteration") continue;
            const std::string name = b.value("run_name", b.value("name", ""));
            if (cases.empty() || cases.back().result.name != name) cases.push_back({CaseResult{name, std::nullopt, "", ""}, 0, {}, {}, {}});
            Blocks& c = cases.back();
            if (b.value("error_occurred", false)) {
                const std::string message = b.value("error_message", "");
                if (b.value("vitals_status", "") == "skipped") {
                    c.result.skipped = message.rfind("skipped: ", 0) == 0 ? message.substr(9) : message;
                } else {
                    c.result.error = message;
                }
                continue;
            }
            const std::optional<std::int64_t> iterations = checked_integer<std::int64_t>(b.at("iterations"));
            if (!iterations || *iterations < 1) {
                throw ResultsFileError(fmt::format("'{}': case '{}' has {} iterations; expected a whole number >= 1", path, name,
                                                   b.at("iterations").dump(-1, ' ', false, json::error_handler_t::replace)));
            }
            c.number_per_run = *iterations;
            const std::optional<int> threads =
                b.contains("num_threads") ? checked_integer<int>(b.at("num_threads")) : std::optional<int>(1);
            if (!threads || *threads < 1) {
                throw ResultsFileError(fmt::format("'{}': case '{}' has num_threads {}; expected a whole number >= 1", path, name,
                                                   b.at("num_threads").dump(-1, ' ', false, json::error_handler_t::replace)));
            }
            const double scale = seconds_per_unit(b.value("time_unit", "ns"), path) * static_cast<double>(c.number_per_run);
            c.raw.push_back(b.at("real_time").get<double>() * scale);
            c.cpu.push_back(b.at("cpu_time").get<double>() * scale);
            c.task = TaskSpec{"", "", "", b.value("label", ""), b.value("sub_label", ""), b.value("description", ""),
                              b.value("env", ""), *threads,
                              b.contains("vitals_work") ? read_work(b.at("vitals_work"), path, name) : WorkPerCall{}};
            if (b.contains("instructions") && b.at("instructions").is_number()) c.result.instructions = b.at("instructions").get<double>();
        }
        std::vector<CaseResult> out;
        for (Blocks& c : cases) {
            if (!c.raw.empty()) c.result.measurement.emplace(c.number_per_run, std::move(c.raw), std::move(c.task), std::move(c.cpu));
            out.push_back(std::move(c.result));
        }
        return out;
    } catch (const json::exception& e) {
        throw ResultsFileError(fmt::format("'{}' is not a results file vitals wrote: {}", path, e.what()));
    } catch (const std::invalid_argument& e) {
        throw ResultsFileError(fmt::format("'{}' is not a results file vitals wrote: {}", path, e.what()));
    }
}

std::string merge_results(const std::vector<std::string>& paths) {
    std::vector<std::string> incomplete;
    json merged;
    json benchmarks = json::array();
    std::map<std::string, std::size_t> owner;  // case -> index of the file it came from
    int family = 0;
    for (std::size_t file = 0; file < paths.size(); ++file) {
        const std::string& path = paths[file];
        const json doc = parse_file(path);
        const json& list = benchmarks_of(doc, path);
        const bool has_context = doc.contains("context") && doc.at("context").is_object();
        if (merged.is_null()) merged["context"] = has_context ? doc.at("context") : json::object();
        const json* incomplete_mark = has_context && doc.at("context").contains("vitals_incomplete")
                                          ? &doc.at("context").at("vitals_incomplete")
                                          : nullptr;
        if (incomplete_mark != nullptr && incomplete_mark->is_boolean() && incomplete_mark->get<bool>()) {
            incomplete.push_back(path);  // an interrupted run stays marked in the joined file
        }
        std::map<std::string, int> families;  // renumbered so families stay unique
        for (json b : list) {
            const json* name_field = b.is_object() ? (b.contains("run_name") ? &b.at("run_name") : b.contains("name") ? &b.at("name") : nullptr)
                                                   : nullptr;
            if (name_field == nullptr || !name_field->is_string()) {
                throw ResultsFileError(fmt::format("'{}': a benchmark entry has no name (a string); give a results file "
                                                   "written by --json or by Google Benchmark",
                                                   path));
            }
            const std::string name = name_field->get<std::string>();
            const auto [it, added] = owner.try_emplace(name, file);
            if (!added && it->second != file) {
                throw ResultsFileError(fmt::format("case '{}' is in both '{}' and '{}'; merge joins disjoint shards",
                                                   name, paths[it->second], path));
            }
            const auto [f, fresh] = families.try_emplace(name, family);
            if (fresh) ++family;
            b["family_index"] = f->second;
            benchmarks.push_back(std::move(b));
        }
    }
    merged["context"]["vitals_merged_from"] = paths;
    merged["context"].erase("vitals_incomplete");
    merged["context"].erase("vitals_cases_planned");
    if (!incomplete.empty()) {
        merged["context"]["vitals_incomplete"] = true;
        merged["context"]["vitals_incomplete_inputs"] = incomplete;
    }
    merged["context"]["vitals_shard"] = "";
    merged["benchmarks"] = std::move(benchmarks);
    return dump_document(merged);
}

}  // namespace vitals
