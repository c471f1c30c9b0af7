// Measuring the limits: each streaming kernel at a working set per cache level, on one
// core and on all of them at once, and the FMA chains; every figure is the median of a
// few repetitions, each long enough for the clock. Not the best: on a shared machine a
// repetition sometimes runs while a neighbour idles, and the best then reports a limit
// the cases placed against it, which are medians too, cannot reach. likwid-bench reports
// its run's mean.
#include <sys/mman.h>

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

#include "probes.hpp"
#include "vitals/local_time.hpp"
#include "vitals/machine.hpp"

namespace vitals::machine {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

constexpr std::int64_t kMiB = std::int64_t{1} << 20;
constexpr double kRepetitionSeconds = 0.002;  // one timed repetition lasts at least this
constexpr int kRepetitions = 7;               // the median of these is the figure

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
            const std::size_t n = words / 3;
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

// Runs `work(count, thread)` on `threads` threads at once, `repetitions` times (odd), and
// returns the median wall time of one repetition, between two barriers. Plain threads
// and std::barrier (not OpenMP): ThreadSanitizer sees every ordering they make.
template <class Work>
double median_parallel_time(const Work& work, std::int64_t count, int threads, int repetitions) {
    std::vector<double> elapsed(static_cast<std::size_t>(repetitions), INFINITY);
    std::barrier sync(threads);
    const auto body = [&](int thread) {
        for (int r = 0; r < repetitions; ++r) {
            sync.arrive_and_wait();
            const Clock::time_point start = Clock::now();
            work(count, thread);
            sync.arrive_and_wait();
            if (thread == 0) elapsed[static_cast<std::size_t>(r)] = seconds_since(start);
        }
    };
    {
        std::vector<std::jthread> others;
        for (int t = 1; t < threads; ++t) others.emplace_back(body, t);
        body(0);
    }
    const auto middle = elapsed.begin() + repetitions / 2;
    std::nth_element(elapsed.begin(), middle, elapsed.end());
    return *middle;
}

// Bytes per second of `kernel` over `working_set` bytes per thread, `threads` threads
// at once, each in its own slice of `region` (`stride` bytes apart).
double stream(Kernel kernel, std::int64_t working_set, int threads, const Region& region, std::int64_t stride) {
    std::atomic<std::uint64_t> sink{0};
    const auto passes = [&](std::int64_t count, int thread) {
        auto* base = reinterpret_cast<std::uint64_t*>(region.data() + thread * stride);
        std::uint64_t read = 0;
        for (std::int64_t p = 0; p < count; ++p) read += one_pass(kernel, base, working_set);
        sink.fetch_add(read, std::memory_order_relaxed);
    };
    const std::int64_t count = repetitions_for(passes, kRepetitionSeconds);
    // Large sets take long enough in one pass for a steady figure from fewer repetitions.
    const int repetitions = working_set >= 64 * kMiB ? 3 : kRepetitions;
    const double seconds = median_parallel_time(passes, count, threads, repetitions);
    if (sink.load() == 1) std::fputs("", stderr);  // keeps the reads alive
    return static_cast<double>(working_set / 8 * 8) * static_cast<double>(count) * threads / seconds;
}

template <bool f64>
double peak(int threads) {
    std::atomic<int> sink{0};
    const auto chains = [&](std::int64_t iterations, int) {
        const double result = f64 ? detail::fma_chain_f64(iterations) : detail::fma_chain_f32(iterations);
        if (result == 0.5) sink.fetch_add(1);  // keeps the chains alive
    };
    const std::int64_t iterations = repetitions_for(chains, 2 * kRepetitionSeconds);
    const double seconds = median_parallel_time(chains, iterations, threads, kRepetitions);
    return detail::fma_flops_per_iteration(f64) * static_cast<double>(iterations) * threads / seconds;
}

std::atomic<DeviceProbe> g_device_probe{nullptr};

}  // namespace

void register_device_probe(DeviceProbe probe) { g_device_probe.store(probe); }

Limits measure(const Progress& progress) {
    const Clock::time_point begin = Clock::now();
    Limits limits;
    limits.identity = identify();
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
    for (Level& l : levels) {  // whole 4 KiB pages of 8-byte words, divisible by 3 arrays
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
    for (const bool all : {false, true}) {
        for (const Level& l : levels) {
            say(l.name + (all ? " bandwidth, all cores" : " bandwidth, one core"));
            const std::int64_t ws = all ? l.all : l.one;
            const int n = all ? threads : 1;
            Bandwidth b{l.name, ws, stream(Kernel::read, ws, n, region, stride), stream(Kernel::copy, ws, n, region, stride),
                        stream(Kernel::triad, ws, n, region, stride)};
            (all ? limits.all_cores : limits.one_core).push_back(b);
            ++done;
        }
    }
    say("peak FLOP/s");
    limits.peak_f32_one_core = peak<false>(1);
    limits.peak_f64_one_core = peak<true>(1);
    limits.peak_f32_all_cores = peak<false>(threads);
    limits.peak_f64_all_cores = peak<true>(threads);
    ++done;
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
