#include "vitals/results.hpp"

#include <fmt/chrono.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <span>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <map>
#include <unordered_map>

#include "json_document.hpp"
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

// ISO 8601 local time with offset, as Google Benchmark writes `date`.
std::string now_iso8601() {
    const std::time_t now = std::time(nullptr);
    std::tm local{};
    localtime_r(&now, &local);
    char buffer[64];
    std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%S%z", &local);
    std::string s = buffer;
    if (s.size() > 5) s.insert(s.size() - 2, ":");  // +0000 -> +00:00
    return s;
}

double cpu_mhz() {
    std::ifstream in("/proc/cpuinfo");
    std::string line;
    while (std::getline(in, line)) {
        if (line.rfind("cpu MHz", 0) == 0) {
            const auto colon = line.find(':');
            if (colon != std::string::npos) return std::atof(line.c_str() + colon + 1);
        }
    }
    return 0.0;
}

json caches() {
    json out = json::array();
    for (int index = 0;; ++index) {
        const std::string dir = fmt::format("/sys/devices/system/cpu/cpu0/cache/index{}/", index);
        const std::string type = read_first_line(dir + "type");
        if (type.empty()) break;
        std::string size = read_first_line(dir + "size");  // "32K"
        long bytes = std::atol(size.c_str());
        if (!size.empty() && size.back() == 'K') bytes *= 1024;
        if (!size.empty() && size.back() == 'M') bytes *= 1024 * 1024;
        const std::string shared = read_first_line(dir + "shared_cpu_list");
        int sharing = 1;
        if (const auto dash = shared.find('-'); dash != std::string::npos) {
            sharing = std::atoi(shared.c_str() + dash + 1) - std::atoi(shared.c_str()) + 1;
        }
        out.push_back({{"type", type == "Unified" ? "Unified" : type},
                       {"level", std::atoi(read_first_line(dir + "level").c_str())},
                       {"size", bytes},
                       {"num_sharing", sharing}});
    }
    return out;
}

json context(const std::string& executable, const RunContext& run) {
    char host[256] = {};
    ::gethostname(host, sizeof host - 1);
    double load[3] = {0, 0, 0};
    const int loads = ::getloadavg(load, 3);
    const std::string governor = read_first_line("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor");
    return {
        {"date", now_iso8601()},
        {"host_name", host},
        {"executable", executable},
        {"num_cpus", std::thread::hardware_concurrency()},
        {"mhz_per_cpu", static_cast<long>(cpu_mhz())},
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
}

constexpr double kNsPerSecond = 1e9;

}  // namespace

std::string dump_document(const nlohmann::json& document) {
    return document.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

std::string results_to_json(const std::vector<CaseResult>& results, const std::string& executable,
                            const RunContext& run) {
    json benchmarks = json::array();
    int family_index = 0;
    for (const CaseResult& result : results) {
        const auto base = [&](const std::string& name) {
            json entry = {{"name", name},
                          {"family_index", family_index},
                          {"per_family_instance_index", 0},
                          {"run_name", result.name}};
            return entry;
        };
        if (!result.measurement) {
            // Google Benchmark's shape for a run that did not happen (SkipWithError).
            json entry = base(result.name);
            entry["run_type"] = "iteration";
            entry["repetitions"] = 0;
            entry["repetition_index"] = 0;
            entry["threads"] = 1;
            entry["iterations"] = 0;
            entry["real_time"] = 0.0;
            entry["cpu_time"] = 0.0;
            entry["time_unit"] = "ns";
            entry["error_occurred"] = true;
            entry["error_message"] = result.skipped.empty() ? result.error : "skipped: " + result.skipped;
            entry["vitals_status"] = result.skipped.empty() ? "failed" : "skipped";
            benchmarks.push_back(std::move(entry));
            ++family_index;
            continue;
        }
        const Measurement& m = *result.measurement;
        const TaskSpec& task = m.task_spec();
        const auto describe = [&](json& entry) {
            entry["label"] = task.label;
            entry["sub_label"] = task.sub_label;
            entry["description"] = task.description;
            entry["env"] = task.env;
            entry["num_threads"] = task.num_threads;
            if (result.instructions) entry["instructions"] = *result.instructions;
        };
        const std::vector<double> times = m.times();
        const std::vector<double> cpu = m.cpu_times();
        const auto repetitions = static_cast<long>(times.size());
        // Blocks as measured: one process's, or each process's in turn, tagged with it.
        const bool by_process = !result.per_process.empty();
        const std::span<const Measurement> measured = by_process ? std::span<const Measurement>(result.per_process)
                                                                 : std::span<const Measurement>(&m, 1);
        std::size_t k = 0;
        for (std::size_t p = 0; p < measured.size(); ++p) {
            const std::vector<double> block_times = measured[p].times();
            const std::vector<double> block_cpu = measured[p].cpu_times();
            for (std::size_t b = 0; b < block_times.size(); ++b, ++k) {
                json entry = base(result.name);
                entry["run_type"] = "iteration";
                entry["repetitions"] = repetitions;
                entry["repetition_index"] = k;
                entry["threads"] = 1;
                entry["iterations"] = measured[p].number_per_run();
                entry["real_time"] = block_times[b] * kNsPerSecond;
                entry["cpu_time"] = (block_cpu.empty() ? block_times[b] : block_cpu[b]) * kNsPerSecond;
                entry["time_unit"] = "ns";
                describe(entry);
                if (by_process) entry["vitals_process"] = p;
                benchmarks.push_back(std::move(entry));
            }
        }
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
            entry["real_time"] = is_time ? a.real * kNsPerSecond : a.real;
            entry["cpu_time"] = is_time ? a.cpu * kNsPerSecond : a.cpu;
            entry["time_unit"] = "ns";
            describe(entry);
            if (by_process) entry["vitals_processes"] = result.per_process.size();
            if (std::string_view(a.name) == "median" && m.median_interval()) {  // a precision-driven run
                entry["vitals_median_ci_low"] = m.median_interval()->low * kNsPerSecond;
                entry["vitals_median_ci_high"] = m.median_interval()->high * kNsPerSecond;
                entry["vitals_median_ci_confidence"] = m.median_interval()->confidence;
            }
            benchmarks.push_back(std::move(entry));
        }
        ++family_index;
    }
    json document = {{"context", context(executable, run)}, {"benchmarks", std::move(benchmarks)}};
    if (run.incomplete) {  // marked, so that no one mistakes it for a whole run
        document["context"]["vitals_incomplete"] = true;
        document["context"]["vitals_cases_planned"] = run.cases_planned;
    }
    return dump_document(document);
}

}  // namespace vitals

namespace vitals {
namespace {

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
    constexpr int kMaxDepth = 32;
    const json::parser_callback_t depth_check = [&](int depth, json::parse_event_t, json&) {
        if (depth > kMaxDepth) {
            throw ResultsFileError(fmt::format("'{}' nests JSON deeper than {} levels; results files are not that deep",
                                               path, kMaxDepth));
        }
        return true;
    };
    try {
        return json::parse(text, depth_check);
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

}  // namespace

const CaseSamples* find_samples(const std::vector<CaseSamples>& cases, std::string_view name) {
    for (const CaseSamples& c : cases) {
        if (c.name == name) return &c;
    }
    return nullptr;
}

std::vector<CaseSamples> read_results(const std::string& path) { return read_results_file(path).cases; }

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
            if (context.contains("vitals_cases_planned") && context.at("vitals_cases_planned").is_number_unsigned()) {
                file.cases_planned = context.at("vitals_cases_planned").get<std::size_t>();
            }
        }
        for (const json& b : benchmarks_of(doc, path)) {
            if (b.value("run_type", "iteration") != "iteration") continue;
            const std::string name = b.contains("run_name") ? b.at("run_name").get<std::string>() : b.at("name").get<std::string>();
            if (name.empty()) throw ResultsFileError(fmt::format("'{}': a benchmark entry has an empty name", path));
            const auto [it, added] = index.try_emplace(name, cases.size());
            if (added) {
                cases.push_back({name, {}, b.value("label", ""), b.value("sub_label", ""), b.value("description", "")});
            }
            if (b.value("error_occurred", false)) {  // a case that did not run: kept, with why
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
            if (!process.is_number_integer() || process.get<std::int64_t>() < 0 || process.get<std::int64_t>() > 1'000'000) {
                throw ResultsFileError(fmt::format("'{}': case '{}' has a vitals_process of {}; expected a process index",
                                                   path, name, process.dump(-1, ' ', false, json::error_handler_t::replace)));
            }
            cases[it->second].process.push_back(process.get<int>());
            if (b.contains("instructions") && b.at("instructions").is_number()) {
                cases[it->second].instructions = b.at("instructions").get<double>();
            }
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
            c.number_per_run = b.at("iterations").get<std::int64_t>();
            const double scale = seconds_per_unit(b.value("time_unit", "ns"), path) * static_cast<double>(c.number_per_run);
            c.raw.push_back(b.at("real_time").get<double>() * scale);
            c.cpu.push_back(b.at("cpu_time").get<double>() * scale);
            c.task = TaskSpec{"", "", "", b.value("label", ""), b.value("sub_label", ""), b.value("description", ""),
                              b.value("env", ""), b.value("num_threads", 1)};
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

std::vector<CaseSamples> samples_of(const std::vector<CaseResult>& results) {
    std::vector<CaseSamples> out;
    for (const CaseResult& r : results) {
        if (r.measurement) {
            CaseSamples samples{r.name, r.measurement->times(), r.measurement->label(), r.measurement->sub_label(),
                                r.measurement->description(), r.instructions, {}};
            for (std::size_t p = 0; p < r.per_process.size(); ++p) {
                samples.process.insert(samples.process.end(), r.per_process[p].raw_times().size(), static_cast<int>(p));
            }
            samples.process.resize(samples.seconds.size(), 0);
            out.push_back(std::move(samples));
        }
    }
    return out;
}

}  // namespace vitals
