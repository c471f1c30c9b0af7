// The figures cached per machine, printed as a table, and a case placed against them.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <cstdlib>
#include <functional>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string_view>

#include "vitals/internal/checked_number.hpp"
#include "vitals/machine.hpp"

#include "figures_json.hpp"
#include "probes.hpp"

namespace vitals::machine {
namespace {

using nlohmann::json;

constexpr int kCacheFormat = 1;

// A count from the cache file: a whole number from 0 to 2^31 (sizes in bytes to 2^62).
std::int64_t whole(const json& value, const char* field) {
    const std::optional<std::int64_t> v = checked_integer<std::int64_t>(value);
    if (!v || *v < 0 || *v > (std::int64_t{1} << 62)) {
        throw std::runtime_error(fmt::format("{} is {}; expected a whole number >= 0", field, value.dump()));
    }
    if (std::string_view(field) != "bytes" && std::string_view(field) != "working_set" && *v > (std::int64_t{1} << 31)) {
        throw std::runtime_error(fmt::format("{} is {}; expected a count", field, value.dump()));
    }
    return *v;
}

json bandwidths_to_json(const std::vector<Bandwidth>& list) {
    json out = json::array();
    for (const Bandwidth& b : list) {
        out.push_back({{"level", b.level}, {"working_set", b.working_set}, {"read", b.read}, {"copy", b.copy}, {"triad", b.triad}});
    }
    return out;
}

std::vector<Bandwidth> bandwidths_from_json(const json& list) {
    std::vector<Bandwidth> out;
    for (const json& b : list) {
        Bandwidth bw{b.at("level").get<std::string>(), whole(b.at("working_set"), "working_set"), b.at("read").get<double>(),
                     b.at("copy").get<double>(), b.at("triad").get<double>()};
        for (const double v : {bw.read, bw.copy, bw.triad}) {
            if (!std::isfinite(v) || v <= 0) throw std::runtime_error("a bandwidth of " + std::to_string(v));
        }
        out.push_back(std::move(bw));
    }
    return out;
}

std::string bytes_text(std::int64_t bytes) {
    if (bytes >= (std::int64_t{1} << 30) && bytes % (std::int64_t{1} << 30) == 0) return fmt::format("{} GiB", bytes >> 30);
    if (bytes >= (std::int64_t{1} << 20)) return fmt::format("{:.0f} MiB", static_cast<double>(bytes) / (1 << 20));
    return fmt::format("{:.0f} KiB", static_cast<double>(bytes) / 1024);
}

}  // namespace

bool Limits::measured_under_load() const {
    // Half the cores busy with other work: the all-core figures shared them, and one
    // core's could share its core.
    return load_average >= 0 && load_average > 0.5 * std::max(identity.cores, 1);
}

const Bandwidth& Limits::level_for(std::int64_t working_set, bool all) const {
    const std::vector<Bandwidth>& list = all ? all_cores : one_core;
    if (list.empty()) throw std::logic_error("no bandwidth figures");
    for (const Bandwidth& b : list) {
        if (working_set <= b.working_set) return b;
    }
    return list.back();  // memory
}

void check_plausible(const Limits& limits) {
    // The widest bounds any core has (a few hundred GB/s of L1, a few hundred GFLOP/s),
    // with room to spare; the narrowest anything that runs vitals reaches, under valgrind.
    constexpr double kLeastRate = 1e6, kMostRatePerCore = 1e13;
    // Figures that contradict each other do so by more than a busy machine's noise: a
    // one-core figure measured while other work ran can be a few times too low.
    constexpr double kNoise = 4;
    const int cores = limits.identity.cores;
    if (cores < 1 || cores > (1 << 20)) throw std::runtime_error(fmt::format("{} cores", cores));
    const auto in_range = [&](double v, double most, const std::string& what) {
        if (!std::isfinite(v) || v < kLeastRate || v > most) {
            throw std::runtime_error(fmt::format("{} is {:g}, which no machine has", what, v));
        }
    };
    const auto levels = [&](const std::vector<Bandwidth>& list, const char* which, double most) {
        if (list.empty()) throw std::runtime_error(fmt::format("no bandwidth figures of {}", which));
        if (list.back().level != "memory") throw std::runtime_error(fmt::format("the last level of {} is not memory", which));
        for (std::size_t i = 0; i < list.size(); ++i) {
            const Bandwidth& b = list[i];
            const std::string name = fmt::format("the {} bandwidth of {}", b.level, which);
            for (const double v : {b.read, b.copy, b.triad}) in_range(v, most, name);
            if (b.working_set <= 0) throw std::runtime_error(name + " has no working set");
            if (i == 0) continue;
            const Bandwidth& inner = list[i - 1];
            if (b.working_set <= inner.working_set) {
                throw std::runtime_error(fmt::format("the {} working set of {} is not larger than the {} one", b.level,
                                                     which, inner.level));
            }
            const double outer_best = std::max({b.read, b.copy, b.triad});
            const double inner_best = std::max({inner.read, inner.copy, inner.triad});
            if (outer_best > kNoise * inner_best) {
                throw std::runtime_error(fmt::format("{} is {:.3g} B/s, more than four times the {} level's {:.3g}", name,
                                                     outer_best, inner.level, inner_best));
            }
        }
    };
    levels(limits.one_core, "one core", kMostRatePerCore);
    levels(limits.all_cores, "all cores", kMostRatePerCore * cores);
    const std::size_t shared = std::min(limits.one_core.size(), limits.all_cores.size());
    for (std::size_t i = 0; i < shared; ++i) {
        const double one = std::max({limits.one_core[i].read, limits.one_core[i].copy, limits.one_core[i].triad});
        const double all = std::max({limits.all_cores[i].read, limits.all_cores[i].copy, limits.all_cores[i].triad});
        if (all > kNoise * one * cores) {
            throw std::runtime_error(fmt::format("all {} cores move {:.3g} B/s at {}, more than four times {} times one core's {:.3g}",
                                                 cores, all, limits.all_cores[i].level, cores, one));
        }
    }
    in_range(limits.peak_f32_one_core, kMostRatePerCore, "the f32 peak of one core");
    in_range(limits.peak_f64_one_core, kMostRatePerCore, "the f64 peak of one core");
    in_range(limits.peak_f32_all_cores, kMostRatePerCore * cores, "the f32 peak of all cores");
    in_range(limits.peak_f64_all_cores, kMostRatePerCore * cores, "the f64 peak of all cores");
    // f64 has half the lanes of f32: twice f32's rate is four times what it can be.
    if (limits.peak_f64_one_core > 2 * limits.peak_f32_one_core || limits.peak_f64_all_cores > 2 * limits.peak_f32_all_cores) {
        throw std::runtime_error("the f64 peak is well above the f32 one, which no vector unit does");
    }
    if (limits.peak_f32_all_cores > kNoise * cores * limits.peak_f32_one_core ||
        limits.peak_f64_all_cores > kNoise * cores * limits.peak_f64_one_core) {
        throw std::runtime_error(fmt::format("the peak of all {} cores is more than four times {} times one core's", cores, cores));
    }
    if (limits.device) {
        const DeviceFigures& d = *limits.device;
        for (const double v : {d.copy_bandwidth, d.peak_f32, d.peak_f64}) {
            if (!std::isfinite(v) || v < kLeastRate || v > 1e17) {
                throw std::runtime_error(fmt::format("the device figure {:g} is one no device has", v));
            }
        }
    }
}

std::string to_json(const Limits& limits) {
    const Identity& id = limits.identity;
    json caches = json::array();
    for (const CacheLevel& c : id.caches) caches.push_back({{"level", c.level}, {"bytes", c.bytes}, {"cores_sharing", c.cores_sharing}});
    const json doc = {
        {"vitals_machine_format", kCacheFormat},
        {"host", id.host},
        {"cpu_model", id.cpu_model},
        {"cores", id.cores},
        {"vector_isa", id.vector_isa},
        {"caches", caches},
        {"measured_at", limits.measured_at},
        {"seconds_taken", limits.seconds_taken},
        {"load_average", limits.load_average},
        {"unstable", limits.unstable},
        {"warnings", limits.warnings},
        {"bandwidth_one_core", bandwidths_to_json(limits.one_core)},
        {"bandwidth_all_cores", bandwidths_to_json(limits.all_cores)},
        {"device", limits.device ? json{{"name", limits.device->name},
                                        {"copy_bandwidth", limits.device->copy_bandwidth},
                                        {"peak_f32", limits.device->peak_f32},
                                        {"peak_f64", limits.device->peak_f64}}
                                  : json(nullptr)},
        {"no_device_reason", limits.no_device_reason},
        {"peak_flops", {{"f32_one_core", limits.peak_f32_one_core},
                        {"f64_one_core", limits.peak_f64_one_core},
                        {"f32_all_cores", limits.peak_f32_all_cores},
                        {"f64_all_cores", limits.peak_f64_all_cores}}},
    };
    return doc.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

Limits detail::figures_from_json(std::string_view text) {
    const json doc = json::parse(text);
    if (doc.value("vitals_machine_format", 0) != kCacheFormat) {
        throw std::runtime_error(fmt::format("format {} (this vitals reads {})", doc.value("vitals_machine_format", 0), kCacheFormat));
    }
    Limits limits;
    Identity& id = limits.identity;
    id.host = doc.at("host").get<std::string>();
    id.cpu_model = doc.at("cpu_model").get<std::string>();
    id.cores = static_cast<int>(whole(doc.at("cores"), "cores"));
    id.vector_isa = doc.at("vector_isa").get<std::string>();
    for (const json& c : doc.at("caches")) {
        id.caches.push_back({static_cast<int>(whole(c.at("level"), "level")), whole(c.at("bytes"), "bytes"),
                             static_cast<int>(whole(c.at("cores_sharing"), "cores_sharing"))});
    }
    limits.measured_at = doc.at("measured_at").get<std::string>();
    limits.seconds_taken = doc.value("seconds_taken", 0.0);
    limits.load_average = doc.value("load_average", -1.0);
    if (doc.contains("unstable")) limits.unstable = doc.at("unstable").get<std::vector<std::string>>();
    if (doc.contains("warnings")) limits.warnings = doc.at("warnings").get<std::vector<std::string>>();
    limits.one_core = bandwidths_from_json(doc.at("bandwidth_one_core"));
    limits.all_cores = bandwidths_from_json(doc.at("bandwidth_all_cores"));
    const json& peak = doc.at("peak_flops");
    limits.peak_f32_one_core = peak.at("f32_one_core").get<double>();
    limits.peak_f64_one_core = peak.at("f64_one_core").get<double>();
    limits.peak_f32_all_cores = peak.at("f32_all_cores").get<double>();
    limits.peak_f64_all_cores = peak.at("f64_all_cores").get<double>();
    for (const double v : {limits.peak_f32_one_core, limits.peak_f64_one_core, limits.peak_f32_all_cores, limits.peak_f64_all_cores}) {
        if (!std::isfinite(v) || v <= 0) throw std::runtime_error("a peak of " + std::to_string(v));
    }
    if (limits.one_core.empty() || limits.all_cores.empty()) throw std::runtime_error("no bandwidth figures");
    if (doc.contains("device") && doc.at("device").is_object()) {
        const json& d = doc.at("device");
        limits.device = DeviceFigures{d.at("name").get<std::string>(), d.at("copy_bandwidth").get<double>(),
                                      d.at("peak_f32").get<double>(), d.at("peak_f64").get<double>()};
    }
    limits.no_device_reason = doc.value("no_device_reason", "");
    check_plausible(limits);
    return limits;
}

Limits from_json(std::string_view text, const std::string& name) {
    try {
        return detail::figures_from_json(text);
    } catch (const std::exception& e) {
        throw std::runtime_error(fmt::format("'{}' holds no machine figures vitals can use ({}); 'vitals machine --refresh' "
                                             "measures them again",
                                             name, e.what()));
    }
}

std::string table(const Limits& limits) {
    const Identity& id = limits.identity;
    std::string caches;
    for (const CacheLevel& c : id.caches) {
        caches += fmt::format("{}L{} {}{}", caches.empty() ? "" : ", ", c.level, bytes_text(c.bytes),
                              c.cores_sharing > 1 ? fmt::format(" (shared by {})", c.cores_sharing) : "");
    }
    // Where the cap lowered the width, the figures are the capped code's ceilings: say so.
    const std::string isa = detail::capped() ? id.vector_isa + " under VITALS_MAX_CPU_ISA" : id.vector_isa;
    std::string out = fmt::format("{} ({} cores, {}; {})\nmeasured {} in {:.1f} s{}\n\n", id.cpu_model, id.cores, isa, caches,
                                  limits.measured_at, limits.seconds_taken,
                                  limits.load_average >= 0 ? fmt::format(", load {:.2f}{}", limits.load_average,
                                                                         limits.measured_under_load() ? " (busy: the figures may be low)" : "")
                                                           : "");
    const auto section = [&](const char* title, const std::vector<Bandwidth>& list) {
        out += fmt::format("{:<24}{:>12}{:>12}{:>12}{:>12}\n", title, "per thread", "read", "copy", "triad");
        for (const Bandwidth& b : list) {
            out += fmt::format("  {:<22}{:>12}{:>8.1f} GB/s{:>7.1f} GB/s{:>7.1f} GB/s\n", b.level, bytes_text(b.working_set),
                               b.read / 1e9, b.copy / 1e9, b.triad / 1e9);
        }
    };
    section("bandwidth, one core", limits.one_core);
    section(fmt::format("bandwidth, {} cores", id.cores).c_str(), limits.all_cores);
    out += fmt::format("\n{:<24}{:>16}{:>16}\n", "peak (FMA chains)", "f32", "f64");
    out += fmt::format("  {:<22}{:>10.1f} GFLOP/s{:>8.1f} GFLOP/s\n", "one core", limits.peak_f32_one_core / 1e9,
                       limits.peak_f64_one_core / 1e9);
    out += fmt::format("  {:<22}{:>10.1f} GFLOP/s{:>8.1f} GFLOP/s\n", fmt::format("{} cores", id.cores),
                       limits.peak_f32_all_cores / 1e9, limits.peak_f64_all_cores / 1e9);
    if (!limits.unstable.empty()) {
        std::string names;
        for (const std::string& u : limits.unstable) names += (names.empty() ? "" : "; ") + u;
        out += fmt::format("\nunstable (repetitions never agreed within 3%): {}\n", names);
    }
    if (!limits.warnings.empty() && limits.unstable.empty()) out += "\n";
    for (const std::string& w : limits.warnings) out += fmt::format("warning: {}\n", w);
    if (limits.device) {
        const DeviceFigures& d = *limits.device;
        out += fmt::format("\n{}: copy {:.1f} GB/s; GEMM {:.1f} GFLOP/s f32, {:.1f} GFLOP/s f64\n", d.name,
                           d.copy_bandwidth / 1e9, d.peak_f32 / 1e9, d.peak_f64 / 1e9);
    } else if (!limits.no_device_reason.empty()) {
        out += fmt::format("\nno device measured: {}\n", limits.no_device_reason);
    }
    return out;
}

Placement place(const Limits& limits, const WorkPerCall& work, int threads, double seconds, bool cold) {
    if (!(seconds > 0) || !std::isfinite(seconds)) throw std::invalid_argument("place: the time per call must be positive");
    Placement p;
    const bool all = threads > 1;
    // A cold call's data come from memory, whatever their size: the last level's ceiling.
    const auto working_set = cold ? std::numeric_limits<std::int64_t>::max()
                                  : static_cast<std::int64_t>(work.working_set > 0 ? work.working_set : work.bytes);
    const Bandwidth& level = limits.level_for(working_set, all);
    p.level = level.level;
    // The best streaming rate of that level: what moving the bytes can reach at most.
    const double bandwidth = std::max({level.read, level.copy, level.triad});
    const double peak = all ? (work.f64 ? limits.peak_f64_all_cores : limits.peak_f32_all_cores)
                            : (work.f64 ? limits.peak_f64_one_core : limits.peak_f32_one_core);
    p.achieved_bytes = work.bytes / seconds;
    p.achieved_flops = work.flops / seconds;
    if (work.flops > 0 && work.bytes > 0) {
        p.intensity = work.flops / work.bytes;
        p.compute_bound = peak < p.intensity * bandwidth;
        p.bound = p.compute_bound ? peak : p.intensity * bandwidth;  // FLOP/s
        p.share = p.achieved_flops / p.bound;
    } else if (work.flops > 0) {
        p.compute_bound = true;
        p.bound = peak;
        p.share = p.achieved_flops / peak;
    } else {
        p.bound = bandwidth;  // bytes per second
        p.share = p.achieved_bytes / bandwidth;
    }
    p.verdict = p.compute_bound ? "compute-bound" : "memory-bound (" + p.level + ")";
    return p;
}

}  // namespace vitals::machine
