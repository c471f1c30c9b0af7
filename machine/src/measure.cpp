// Measuring the limits: each streaming kernel at a working set per cache level, on one
// core and on all of them at once, and the FMA chains. Each figure repeats until its last
// five repetitions agree (within 3% of their median) and is the median of those five;
// one that never settles is marked unstable. Not the best: on a shared machine a
// repetition sometimes runs while a neighbour idles, and the best then reports a limit
// the cases placed against it, which are medians too, cannot reach. likwid-bench reports
// its run's mean. Figures that contradict each other (f32 not about twice f64, all cores
// below one, a cache level slower than the one outside it) are measured again, twice at
// most, and then kept with a warning.
#include <sys/mman.h>

#include <cstdlib>

#include <algorithm>
#include <atomic>
#include <barrier>
#include <thread>
#include <vector>
#include <cmath>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <tuple>

#include <fmt/format.h>

#include "consistency.hpp"
#include "probes.hpp"
#include "vitals/local_time.hpp"
#include "vitals/machine.hpp"

namespace vitals::machine {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

constexpr std::int64_t kMiB = std::int64_t{1} << 20;
constexpr double kRepetitionSeconds = 0.002;  // one timed repetition lasts at least this
constexpr int kSettled = 5;                   // the figure: the median of the last this many...
constexpr double kSettledSpread = 0.03;       // ...once they agree within this share of it
constexpr int kMostRepetitions = 25;          // or after this many, marked unstable

// One region, touched by the threads that will use it (pages land near them), sliced
// per thread; unmapped at the end.
class Region {
public:
    explicit Region(std::int64_t bytes) : bytes_(static_cast<std::size_t>(bytes)) {
        void* p = ::mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) throw std::runtime_error("cannot map " + std::to_string(bytes_ >> 20) + " MiB to measure memory bandwidth");
        base_ = static_cast<std::byte*>(p);
    }
    ~Region() { ::munmap(base_, bytes_); }
    Region(const Region&) = delete;
    Region& operator=(const Region&) = delete;
    std::byte* data() const { return base_; }
    std::size_t size() const { return bytes_; }

private:
    std::size_t bytes_;
    std::byte* base_;
};

enum class Kernel { read, copy, triad };

// How far past a whole page multiple each array of a pass starts, in 8-byte words: the
// copy's two half a page apart, the triad's three a third of a page (whole cache lines).
// Arrays a page multiple apart alias on every element: a store and a later load with the
// same low 12 address bits look dependent to the core, which then waits, and the L1
// figures move from run to run.
constexpr std::size_t kCopySourceSkew = 256;
constexpr std::size_t kTriadSkew = 168;
// The most bytes a pass reads or writes past `working_set`: each slice holds this much more.
constexpr std::int64_t kPassSkewBytes = 2 * kTriadSkew * 8;
static_assert(kPassSkewBytes >= static_cast<std::int64_t>(kCopySourceSkew * 8));

// One pass of `kernel` over `working_set` bytes at `base` (and up to kPassSkewBytes past
// it); returns what it read.
std::uint64_t one_pass(Kernel kernel, std::uint64_t* base, std::int64_t working_set) {
    const auto words = static_cast<std::size_t>(working_set / 8);
    switch (kernel) {
        case Kernel::read: return detail::read_kernel(base, words);
        case Kernel::copy: detail::copy_kernel(base, base + words / 2 + kCopySourceSkew, words / 2); return 0;
        case Kernel::triad: {
            auto* d = reinterpret_cast<double*>(base);
            // Whole cache lines per array, so that no vector load of b or c straddles two.
            const std::size_t n = words / 3 / 8 * 8;
            detail::triad_kernel(d, d + n + kTriadSkew, d + 2 * (n + kTriadSkew), 1.0000001, n);
            return 0;
        }
    }
    return 0;
}

// How many times `work(count, thread)` must repeat for one timed repetition: sized on
// this thread alone, so that a busy machine cannot shrink it to nothing (a parallel
// sizing run would time the scheduler, not the work).
template <class Work>
std::int64_t repetitions_for(const Work& work, double seconds) {
    std::int64_t count = 1;
    for (;;) {
        const Clock::time_point start = Clock::now();
        work(count, 0);
        const double elapsed = seconds_since(start);
        if (elapsed >= seconds) return count;
        const double grow = elapsed > 0 ? seconds / elapsed * 1.2 : 16.0;
        count = std::max(count + 1, static_cast<std::int64_t>(static_cast<double>(count) * std::min(grow, 16.0)));
    }
}

// The time of one repetition: the median of the last kSettled once they agree.
struct Settled {
    double seconds = 0;
    bool stable = true;  // false: kMostRepetitions passed without agreement
};

// Whether the last kSettled of `elapsed` agree; their median.
std::pair<bool, double> last_agree(const std::vector<double>& elapsed) {
    std::vector<double> last(elapsed.end() - kSettled, elapsed.end());
    std::sort(last.begin(), last.end());
    const double median = last[kSettled / 2];
    return {median > 0 && (last.back() - last.front()) <= kSettledSpread * median, median};
}

// Runs `work(count, thread)` on `threads` threads at once, repetition after repetition
// (at least kSettled, at most `most`), until the last kSettled agree. Plain threads and
// std::barrier (not OpenMP): ThreadSanitizer sees every ordering they make.
template <class Work>
Settled settled_parallel_time(const Work& work, std::int64_t count, int threads, int most) {
    std::vector<double> elapsed;
    std::atomic<bool> done{false};
    Settled out;
    std::barrier sync(threads);
    const auto body = [&](int thread) {
        while (!done.load(std::memory_order_acquire)) {
            sync.arrive_and_wait();
            const Clock::time_point start = Clock::now();
            work(count, thread);
            sync.arrive_and_wait();
            if (thread == 0) {  // thread 0 decides while the others wait at the third barrier
                elapsed.push_back(seconds_since(start));
                if (static_cast<int>(elapsed.size()) >= kSettled) {
                    const auto [agree, median] = last_agree(elapsed);
                    out.seconds = median;
                    if (agree || static_cast<int>(elapsed.size()) >= most) {
                        out.stable = agree;
                        done.store(true, std::memory_order_release);
                    }
                }
            }
            sync.arrive_and_wait();
        }
    };
    {
        std::vector<std::jthread> others;
        for (int t = 1; t < threads; ++t) others.emplace_back(body, t);
        body(0);
    }
    return out;
}

// A figure and whether it settled.
struct Rate {
    double per_second = 0;
    bool stable = true;
};

// Bytes per second of `kernel` over `working_set` bytes per thread, `threads` threads
// at once, each in its own slice of `region` (`stride` bytes apart).
Rate stream(Kernel kernel, std::int64_t working_set, int threads, const Region& region, std::int64_t stride) {
    std::atomic<std::uint64_t> sink{0};
    const auto passes = [&](std::int64_t count, int thread) {
        auto* base = reinterpret_cast<std::uint64_t*>(region.data() + thread * stride);
        std::uint64_t read = 0;
        for (std::int64_t p = 0; p < count; ++p) read += one_pass(kernel, base, working_set);
        sink.fetch_add(read, std::memory_order_relaxed);
    };
    const std::int64_t count = repetitions_for(passes, kRepetitionSeconds);
    // Large sets take long in one pass: fewer tries before calling them unstable.
    const int most = working_set >= 64 * kMiB ? 2 * kSettled : kMostRepetitions;
    const Settled t = settled_parallel_time(passes, count, threads, most);
    if (sink.load() == 1) std::fputs("", stderr);  // keeps the reads alive
    return {static_cast<double>(working_set / 8 * 8) * static_cast<double>(count) * threads / t.seconds, t.stable};
}

template <bool f64>
Rate peak(int threads) {
    std::atomic<int> sink{0};
    const auto chains = [&](std::int64_t iterations, int) {
        const double result = f64 ? detail::fma_chain_f64(iterations) : detail::fma_chain_f32(iterations);
        if (result == 0.5) sink.fetch_add(1);  // keeps the chains alive
    };
    const std::int64_t iterations = repetitions_for(chains, 2 * kRepetitionSeconds);
    const Settled t = settled_parallel_time(chains, iterations, threads, kMostRepetitions);
    return {detail::fma_flops_per_iteration(f64) * static_cast<double>(iterations) * threads / t.seconds, t.stable};
}

double best(const Bandwidth& b) { return std::max({b.read, b.copy, b.triad}); }

std::atomic<DeviceProbe> g_device_probe{nullptr};

// The load average over the last minute; -1 where the kernel does not say.
double one_minute_load() {
    double load[1] = {-1};
    return ::getloadavg(load, 1) == 1 ? load[0] : -1;
}

}  // namespace

std::vector<detail::Contradiction> detail::contradictions(const Limits& limits) {
    std::vector<Contradiction> out;
    constexpr double kSlack = 0.9;  // within 10%: the noise of figures that did settle
    // f32 has twice f64's lanes at the same vector width: about twice the rate. Scalar
    // code has one lane either way.
    const bool vector = limits.identity.vector_isa != "scalar";
    const double low = vector ? 1.6 : 0.8, high = vector ? 2.5 : 1.25;
    for (const bool all : {false, true}) {
        const double f32 = all ? limits.peak_f32_all_cores : limits.peak_f32_one_core;
        const double f64 = all ? limits.peak_f64_all_cores : limits.peak_f64_one_core;
        if (f64 > 0 && (f32 / f64 < low || f32 / f64 > high)) {
            out.push_back({fmt::format("the f32 peak of {} is {:.2f} times the f64 one, not about {}", all ? "all cores" : "one core",
                                       f32 / f64, vector ? "twice" : "the same"),
                           {{true, all, 0}}});
        }
    }
    if (limits.peak_f32_all_cores < kSlack * limits.peak_f32_one_core || limits.peak_f64_all_cores < kSlack * limits.peak_f64_one_core) {
        out.push_back({"the peak of all cores is below one core's", {{true, false, 0}, {true, true, 0}}});
    }
    for (std::size_t i = 0; i < std::min(limits.one_core.size(), limits.all_cores.size()); ++i) {
        if (best(limits.all_cores[i]) < kSlack * best(limits.one_core[i])) {
            out.push_back({fmt::format("all cores move less at {} than one core", limits.one_core[i].level),
                           {{false, false, i}, {false, true, i}}});
        }
    }
    for (const bool all : {false, true}) {
        const std::vector<Bandwidth>& levels = all ? limits.all_cores : limits.one_core;
        for (std::size_t i = 0; i + 1 < levels.size(); ++i) {
            if (best(levels[i]) < kSlack * best(levels[i + 1])) {
                out.push_back({fmt::format("{} {} bandwidth is below {} {} bandwidth", all ? "all cores'" : "one core's", levels[i].level,
                                           all ? "their" : "its", levels[i + 1].level),
                               {{false, all, i}, {false, all, i + 1}}});
            }
        }
    }
    return out;
}

bool detail::measure_again_when_quiet(const Limits& cached, double load_now) {
    return cached.measured_under_load() && load_now >= 0 && load_now < 0.25 * std::max(cached.identity.cores, 1);
}

void register_device_probe(DeviceProbe probe) { g_device_probe.store(probe); }

Limits measure(const Progress& progress) {
    const Clock::time_point begin = Clock::now();
    Limits limits;
    limits.identity = identify();
    limits.load_average = one_minute_load();
    const Identity& id = limits.identity;
    const int threads = std::max(1, id.cores);
    // Per-thread working sets: half of each cache a thread has to itself (a shared level
    // is split among the cores sharing it), and for memory well past the last level.
    struct Level {
        std::string name;
        std::int64_t one, all;  // bytes per thread, one core alone / all cores at once
    };
    std::vector<Level> levels;
    std::int64_t last_cache = 0, previous = 0;
    for (const CacheLevel& c : id.caches) {
        const int sharing = std::clamp(c.cores_sharing, 1, threads);
        std::int64_t one = c.bytes / 2;
        // A shared last level is often reported whole for a machine of which this one is a
        // slice (a virtual machine lists its host's L3): measured at a set a few private
        // caches large, it is the speed cases of that size see.
        if (c.level >= 3 && previous > 0) one = std::min(one, 8 * previous);
        // (Not "L" + std::to_string: GCC 12 warns falsely of an overlapping copy there.)
        levels.push_back({std::string(1, 'L').append(std::to_string(c.level)), one, std::min(c.bytes / 2 / sharing, one)});
        last_cache = std::max(last_cache, c.bytes);
        previous = c.bytes;
    }
    const std::int64_t memory = std::clamp<std::int64_t>(2 * last_cache, 64 * kMiB, 512 * kMiB);
    levels.push_back({"memory", memory, memory / threads});
    for (Level& l : levels) {  // whole 4 KiB pages; one_pass splits them into arrays of whole cache lines
        l.one = std::max<std::int64_t>(l.one / 4096 * 4096, 4096);
        l.all = std::max<std::int64_t>(l.all / 4096 * 4096, 4096);
    }
    // One region holds every thread's slice of the largest working set. Slices start
    // 4 KiB + 64 bytes apart past a page multiple, so that no two alias in the caches,
    // which also leaves room for a pass's skewed arrays.
    const std::int64_t stride = memory / threads / 4096 * 4096 + 4096 + 64;
    static_assert(kPassSkewBytes <= 4096);
    const Region region(std::max<std::int64_t>(memory, stride * threads) + 4096);
{  // each thread faults in its own slice first (fresh pages read as zeros: no denormals)
        std::vector<std::jthread> touching;
        for (int t = 0; t < threads; ++t) {
            touching.emplace_back([&, t] {
                const std::size_t begin = std::min(region.size(), static_cast<std::size_t>(t) * static_cast<std::size_t>(stride));
                const std::size_t end = t + 1 == threads ? region.size() : std::min(region.size(), begin + static_cast<std::size_t>(stride));
                for (std::size_t at = begin; at < end; at += 4096) region.data()[at] = std::byte{0};
            });
        }
    }

    const double steps = static_cast<double>(levels.size() * 2 + 1);
    double done = 0;
    const auto say = [&](const std::string& what) {
        if (progress) progress(what, done / steps);
    };
    // The figures by name, for the unstable ones ("L2 read, one core").
    std::vector<std::vector<std::string>> unstable_levels[2];
    std::vector<std::string> unstable_peaks[2];
    for (auto& u : unstable_levels) u.resize(levels.size());
    const auto measure_level = [&](bool all, std::size_t i) {
        const Level& l = levels[i];
        const std::int64_t ws = all ? l.all : l.one;
        const int n = all ? threads : 1;
        Bandwidth b{l.name, ws, 0, 0, 0};
        std::vector<std::string>& unstable = unstable_levels[all][i];
        unstable.clear();
        for (const auto& [kernel, field, name] : {std::tuple{Kernel::read, &Bandwidth::read, "read"},
                                                  std::tuple{Kernel::copy, &Bandwidth::copy, "copy"},
                                                  std::tuple{Kernel::triad, &Bandwidth::triad, "triad"}}) {
            const Rate r = stream(kernel, ws, n, region, stride);
            b.*field = r.per_second;
            if (!r.stable) unstable.push_back(fmt::format("{} {}, {}", l.name, name, all ? "all cores" : "one core"));
        }
        (all ? limits.all_cores : limits.one_core)[i] = b;
    };
    const auto measure_peaks = [&](bool all) {
        const int n = all ? threads : 1;
        const Rate f32 = peak<false>(n), f64 = peak<true>(n);
        (all ? limits.peak_f32_all_cores : limits.peak_f32_one_core) = f32.per_second;
        (all ? limits.peak_f64_all_cores : limits.peak_f64_one_core) = f64.per_second;
        unstable_peaks[all].clear();
        if (!f32.stable) unstable_peaks[all].push_back(fmt::format("f32 peak, {}", all ? "all cores" : "one core"));
        if (!f64.stable) unstable_peaks[all].push_back(fmt::format("f64 peak, {}", all ? "all cores" : "one core"));
    };
    limits.one_core.resize(levels.size());
    limits.all_cores.resize(levels.size());
    for (const bool all : {false, true}) {
        for (std::size_t i = 0; i < levels.size(); ++i) {
            say(levels[i].name + (all ? " bandwidth, all cores" : " bandwidth, one core"));
            measure_level(all, i);
            ++done;
        }
    }
    say("peak FLOP/s");
    measure_peaks(false);
    measure_peaks(true);
    ++done;
    // Contradictions: measured again (a busy minute passes), twice at most, then warned of.
    for (int attempt = 0;; ++attempt) {
        const std::vector<detail::Contradiction> found = detail::contradictions(limits);
        if (found.empty()) break;
        if (attempt == 2) {
            for (const detail::Contradiction& c : found) limits.warnings.push_back(c.what + " (measured three times)");
            break;
        }
        say("measuring again what contradicts itself");
        for (const detail::Contradiction& c : found) {
            for (const detail::Refigure& r : c.again) {
                if (r.peaks) {
                    measure_peaks(r.all);
                } else {
                    measure_level(r.all, r.level);
                }
            }
        }
    }
    for (const bool all : {false, true}) {
        for (const auto& names : unstable_levels[all]) limits.unstable.insert(limits.unstable.end(), names.begin(), names.end());
    }
    for (const auto& names : unstable_peaks) limits.unstable.insert(limits.unstable.end(), names.begin(), names.end());
    if (const DeviceProbe probe = g_device_probe.load()) {
        say("the device's copy bandwidth and GEMM peak");
        auto [figures, why] = probe();
        limits.device = std::move(figures);
        limits.no_device_reason = std::move(why);
    }
    say("done");
    limits.measured_at = now_iso8601();
    limits.seconds_taken = seconds_since(begin);
    return limits;
}

}  // namespace vitals::machine
