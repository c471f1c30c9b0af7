// The machine's own limits, measured: memory bandwidth at each cache level and peak
// FLOP/s, of one core and of all of them; and where a case with known work sits
// against them (a roofline). `vitals machine` prints and caches these figures.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "vitals/cpu_caches.hpp"
#include "vitals/work_per_call.hpp"

namespace vitals::machine {

// One data (or unified) cache level of core 0, from /sys.
struct CacheLevel {
    int level = 0;
    std::int64_t bytes = 0;
    int cores_sharing = 1;
};

using vitals::CacheInfo;
// vitals::core0_caches(), under the name this part has always given it.
std::vector<CacheInfo> core0_caches();

// What this machine is, as the cached figures are keyed by.
struct Identity {
    std::string host;
    std::string cpu_model;
    int cores = 1;                  // online CPUs this process may run on
    std::vector<CacheLevel> caches; // L1, L2, L3 as present
    std::string vector_isa;         // the widest vector unit used: "avx512", "avx2" or "scalar" (VITALS_MAX_CPU_ISA caps it)
};
Identity identify();

// Bandwidth at one working-set size, in bytes per second (bytes read plus written).
struct Bandwidth {
    std::string level;              // "L1", "L2", "L3" or "memory"
    std::int64_t working_set = 0;   // bytes per thread's buffers together
    double read = 0, copy = 0, triad = 0;
};

// An accelerator's limits, from the probe a program with a device backend registers.
struct DeviceFigures {
    std::string name;            // "CUDA device 0", or the device's own name
    double copy_bandwidth = 0;   // bytes read plus written per second, device to device
    double peak_f32 = 0, peak_f64 = 0;  // FLOP/s of the vendor's GEMM at a large square size
};

// Measures the device, or says why there is none (the returned string, with no figures).
using DeviceProbe = std::pair<std::optional<DeviceFigures>, std::string> (*)();
// The probe `measure` calls (the `vitals` program registers the kernel set's CUDA one).
void register_device_probe(DeviceProbe probe);

struct Limits {
    Identity identity;
    std::optional<DeviceFigures> device;  // measured when a probe is registered and a device is usable
    std::string no_device_reason;         // why not, when a probe said so
    std::vector<Bandwidth> one_core, all_cores;
    double peak_f32_one_core = 0, peak_f64_one_core = 0;  // FLOP/s (an FMA is 2)
    double peak_f32_all_cores = 0, peak_f64_all_cores = 0;
    std::string measured_at;        // ISO 8601
    double seconds_taken = 0;
    double load_average = -1;       // over the minute before measuring; -1: not known
    // Figures whose repetitions never agreed within 3% ("L2 read, one core"), and
    // contradictions that measuring again did not resolve: the figures are kept, marked.
    std::vector<std::string> unstable;
    std::vector<std::string> warnings;
    // The load per core when measured was high enough to have lowered the figures.
    bool measured_under_load() const;

    // The bandwidth a working set of that many bytes meets: the level it fits in (half
    // a cache at most), of one core or all. Throws std::logic_error with no figures.
    const Bandwidth& level_for(std::int64_t working_set, bool all_cores = false) const;
};

// Progress while measuring: what is measured now, and the share done (0..1).
using Progress = std::function<void(std::string_view what, double done)>;

// Measures everything (about two seconds). Threads: all the CPUs this process may run
// on, through OpenMP, for the all-core figures.
Limits measure(const Progress& progress = {});

// The JSON the figures are cached in, and back (std::runtime_error naming the problem,
// also for figures that contradict each other or that no machine can have).
std::string to_json(const Limits& limits);
Limits from_json(std::string_view text, const std::string& name);

// Throws std::runtime_error naming the first figure that no machine can have (a bandwidth
// under 1 MB/s or over 10 TB/s a core, a peak under 1 MFLOP/s or over 10 TFLOP/s a core)
// or that contradicts another by more than a busy machine's noise (f64 at twice f32's
// rate, all cores more than four times what each core alone reaches, a cache level more
// than four times as fast as the level inside it, levels out of order).
void check_plausible(const Limits& limits);

// Something the cache could not do, in one line (the figures are measured or used
// anyway). The default prints "vitals: warning: ..." to standard error.
using Warn = std::function<void(const std::string& message)>;

// Where the figures of this machine are cached: $VITALS_CACHE_DIR, else
// $XDG_CACHE_HOME/vitals (an absolute one), else $HOME/.cache/vitals, else the same under
// this user's home folder from the passwd database, else $XDG_RUNTIME_DIR/vitals; one
// file per host and CPU model. nullopt when there is no such folder: nothing is cached.
// Never a shared folder: the folder must belong to this user and be writable by no one
// else (vitals creates it with mode 0700), else it is not used.
std::optional<std::filesystem::path> cache_file(const Identity& identity);
// The cached figures of this machine, if any were measured on it with the same CPU model.
// A cache that cannot be used (a folder of another user or writable by others, a link, a
// file that does not parse or holds implausible figures) is reported through `warn` and
// reads as nothing cached.
std::optional<Limits> load_cached(const Identity& identity, const Warn& warn = {});
// Stores the figures in the cache; where that is not possible, says why through `warn`
// and stores nothing. Never throws for the cache's sake.
void store_cached(const Limits& limits, const Warn& warn = {});
// When `cached` was measured under load and the machine is quiet now: the note that says
// so, and the figures are to be measured again; nullopt: the cached figures stand.
std::optional<std::string> measure_again_now(const Limits& cached);
// Measured now when `refresh`, nothing is cached or measure_again_now says so, then
// cached; else from the cache.
// Problems with the cache are warnings, never errors: fresh figures are always returned.
Limits limits(bool refresh = false, const Progress& progress = {}, const Warn& warn = {});

// The table `vitals machine` prints.
std::string table(const Limits& limits);

// A case's place on the roofline: its work per call against this machine's limits.
struct Placement {
    double intensity = 0;          // flops per byte (0 without flops)
    double achieved_flops = 0, achieved_bytes = 0;  // per second
    std::string level;             // the cache level the working set fits in
    double bound = 0;              // the attainable rate in the bound's unit
    bool compute_bound = false;    // peak FLOP/s is the lesser bound
    double share = 0;              // achieved / bound, 0..(rarely a little over 1)
    std::string verdict;           // "memory-bound (L2)" or "compute-bound"
};
// `threads`: the case's thread count, for one core's limits or all cores'. `cold`: each
// call found the caches evicted (Cache::cold), so its data came from memory and the
// memory ceiling bounds it whatever its working set. Throws std::invalid_argument for a
// time per call that is not positive.
Placement place(const Limits& limits, const WorkPerCall& work, int threads, double seconds_per_call, bool cold = false);

}  // namespace vitals::machine
