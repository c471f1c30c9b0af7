// The machine's limits: the cached figures read back, the roofline placement against
// hand-computed values, and a real (short) measurement that must be self-consistent.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <vector>

#include "consistency.hpp"
#include "probes.hpp"
#include "vitals/machine.hpp"

using namespace vitals::machine;

namespace {

// A machine with round figures: L1 32 KiB / L2 1 MiB per core, 100/50/10 GB/s one core,
// 4 cores at 4x, 100 GFLOP/s f32 and 50 f64 per core.
Limits round_machine() {
    Limits l;
    l.identity = {"host", "Test CPU 9000", 4, {{1, 32 << 10, 1}, {2, 1 << 20, 1}}, "avx2"};
    l.one_core = {{"L1", 16 << 10, 100e9, 90e9, 80e9}, {"L2", 512 << 10, 50e9, 45e9, 40e9}, {"memory", 64 << 20, 10e9, 9e9, 8e9}};
    l.all_cores = {{"L1", 16 << 10, 400e9, 360e9, 320e9}, {"L2", 512 << 10, 200e9, 180e9, 160e9}, {"memory", 16 << 20, 20e9, 18e9, 16e9}};
    l.peak_f32_one_core = 100e9;
    l.peak_f64_one_core = 50e9;
    l.peak_f32_all_cores = 400e9;
    l.peak_f64_all_cores = 200e9;
    l.measured_at = "2026-12-01T00:00:00+0000";
    return l;
}

}  // namespace

TEST(Machine, FiguresRoundTripThroughTheCacheFile) {
    const Limits l = round_machine();
    const Limits back = from_json(to_json(l), "mem");
    EXPECT_EQ(back.identity.cpu_model, "Test CPU 9000");
    EXPECT_EQ(back.identity.cores, 4);
    ASSERT_EQ(back.identity.caches.size(), 2u);
    EXPECT_EQ(back.identity.caches[1].bytes, 1 << 20);
    ASSERT_EQ(back.one_core.size(), 3u);
    EXPECT_EQ(back.one_core[1].level, "L2");
    EXPECT_DOUBLE_EQ(back.one_core[1].copy, 45e9);
    EXPECT_DOUBLE_EQ(back.peak_f64_all_cores, 200e9);
    EXPECT_THROW(from_json("{}", "empty.json"), std::runtime_error);
    try {
        from_json(R"({"vitals_machine_format": 1, "host": "h"})", "part.json");
        FAIL() << "a file without figures was accepted";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("'part.json'"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("--refresh"), std::string::npos) << e.what();
    }
}

TEST(Machine, CacheFileIsPerHostAndCpuModel) {
    Identity a{"box", "CPU A", 8, {}, "avx2"}, b{"box", "CPU B", 8, {}, "avx2"};
    setenv("VITALS_CACHE_DIR", "/tmp/vitals-machine-test", 1);
    ASSERT_TRUE(cache_file(a));
    EXPECT_EQ(cache_file(a)->parent_path(), "/tmp/vitals-machine-test");
    EXPECT_NE(cache_file(a), cache_file(b));
    EXPECT_NE(cache_file(a)->filename().string().find("CPU-A"), std::string::npos) << cache_file(a)->string();
    unsetenv("VITALS_CACHE_DIR");
}

TEST(Machine, LevelForAWorkingSet) {
    const Limits l = round_machine();
    EXPECT_EQ(l.level_for(8 << 10).level, "L1");
    EXPECT_EQ(l.level_for(16 << 10).level, "L1");
    EXPECT_EQ(l.level_for((16 << 10) + 1).level, "L2");
    EXPECT_EQ(l.level_for(1 << 30).level, "memory");
    EXPECT_EQ(l.level_for(20 << 20, true).level, "memory");
}

// Figures that cannot all be true are found, each with the figures to measure again.
TEST(Machine, ContradictionsAreFoundWithWhatToMeasureAgain) {
    EXPECT_TRUE(detail::contradictions(round_machine()).empty());
    Limits l = round_machine();
    l.peak_f64_one_core = 90e9;  // f32 only 1.1 times f64 at the same vector width
    std::vector<detail::Contradiction> found = detail::contradictions(l);
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].what, "the f32 peak of one core is 1.11 times the f64 one, not about twice");
    ASSERT_EQ(found[0].again.size(), 1u);
    EXPECT_TRUE(found[0].again[0].peaks);
    EXPECT_FALSE(found[0].again[0].all);
    l.identity.vector_isa = "scalar";  // one lane either way: the same rate is right
    l.peak_f64_all_cores = 360e9;
    EXPECT_TRUE(detail::contradictions(l).empty());

    l = round_machine();
    l.all_cores[1].read = l.all_cores[1].copy = l.all_cores[1].triad = 30e9;  // 2 cores' L2 below one core's 50
    l.one_core[0].read = 40e9;
    l.one_core[0].copy = l.one_core[0].triad = 1e9;  // L1 below L2
    found = detail::contradictions(l);
    ASSERT_EQ(found.size(), 2u);
    EXPECT_EQ(found[0].what, "all cores move less at L2 than one core");
    EXPECT_EQ(found[0].again.size(), 2u);
    EXPECT_EQ(found[0].again[0].level, 1u);
    EXPECT_EQ(found[1].what, "one core's L1 bandwidth is below its L2 bandwidth");
    EXPECT_EQ(found[1].again[1].level, 1u);
    // The levels of all cores are in order too.
    l = round_machine();
    l.all_cores[2].read = 250e9;  // all cores' memory above their L2's 200
    found = detail::contradictions(l);
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].what, "all cores' L2 bandwidth is below their memory bandwidth");
    EXPECT_TRUE(found[0].again[0].all);
    EXPECT_EQ(found[0].again[1].level, 2u);
    // Within 10% is noise, not a contradiction.
    l = round_machine();
    l.peak_f32_all_cores = 0.95 * l.peak_f32_one_core * 1.0;
    l.peak_f64_all_cores = 0.5 * l.peak_f32_all_cores;
    found = detail::contradictions(l);
    EXPECT_TRUE(found.empty()) << found.front().what;
}

// The load when measured, the unstable figures and the warnings are kept with the
// figures and shown; figures measured busy are taken again once the machine is quiet.
TEST(Machine, LoadUnstableFiguresAndWarningsAreKept) {
    Limits l = round_machine();
    l.load_average = 3.5;  // 4 cores: busy
    l.unstable = {"L2 copy, one core"};
    l.warnings = {"the peak of all cores is below one core's (measured three times)"};
    const Limits back = from_json(to_json(l), "mem");
    EXPECT_DOUBLE_EQ(back.load_average, 3.5);
    EXPECT_EQ(back.unstable, l.unstable);
    EXPECT_EQ(back.warnings, l.warnings);
    EXPECT_TRUE(back.measured_under_load());
    const std::string shown = table(back);
    EXPECT_NE(shown.find(", load 3.50 (busy: the figures may be low)"), std::string::npos) << shown;
    EXPECT_NE(shown.find("unstable (repetitions never agreed within 3%): L2 copy, one core"), std::string::npos) << shown;
    EXPECT_NE(shown.find("warning: the peak of all cores is below one core's"), std::string::npos) << shown;
    EXPECT_TRUE(detail::measure_again_when_quiet(back, 0.5));
    EXPECT_FALSE(detail::measure_again_when_quiet(back, 2.0));  // still busy: the cache stands
    l.load_average = 1.0;
    EXPECT_FALSE(detail::measure_again_when_quiet(l, 0.0));  // measured quiet enough
    // A cache file of before these fields reads as not known and not busy.
    std::string old = to_json(round_machine());
    const std::size_t at = old.find("  \"load_average\"");
    ASSERT_NE(at, std::string::npos);
    old.erase(at, old.find('\n', at) - at + 1);
    EXPECT_DOUBLE_EQ(from_json(old, "old").load_average, -1);
    EXPECT_FALSE(from_json(old, "old").measured_under_load());
}

TEST(Machine, RooflinePlacementByHand) {
    const Limits l = round_machine();
    // A copy of 256 KiB each way in 10 us on one core: 512 KiB moved, fits L2 (50 GB/s best).
    const Placement copy = place(l, {.bytes = 512 << 10, .working_set = 512 << 10}, 1, 10e-6);
    EXPECT_EQ(copy.level, "L2");
    EXPECT_FALSE(copy.compute_bound);
    EXPECT_DOUBLE_EQ(copy.bound, 50e9);
    EXPECT_NEAR(copy.share, (512.0 * 1024 / 10e-6) / 50e9, 1e-12);
    EXPECT_EQ(copy.verdict, "memory-bound (L2)");
    // A 128x128 f32 matmul: 2 * 128^3 flops over 3 * 64 KiB, in 50 us, one core.
    const double flops = 2.0 * 128 * 128 * 128, bytes = 3.0 * 128 * 128 * 4;
    const Placement mm = place(l, {.bytes = bytes, .flops = flops}, 1, 50e-6);
    EXPECT_NEAR(mm.intensity, flops / bytes, 1e-12);  // 21.3 flops per byte
    EXPECT_EQ(mm.level, "L2");                          // 192 KiB
    EXPECT_TRUE(mm.compute_bound);                      // 21.3 * 50 GB/s > 100 GFLOP/s
    EXPECT_DOUBLE_EQ(mm.bound, 100e9);
    EXPECT_NEAR(mm.share, flops / 50e-6 / 100e9, 1e-12);
    EXPECT_EQ(mm.verdict, "compute-bound");
    // The same in f64 on four threads: the all-core f64 peak bounds it.
    const Placement mm64 = place(l, {.bytes = 2 * bytes, .flops = flops, .f64 = true}, 4, 50e-6);
    EXPECT_DOUBLE_EQ(mm64.bound, 200e9);
    // Low intensity: bound by intensity times bandwidth (memory: 10 GB/s best).
    const Placement axpy = place(l, {.bytes = 3 * 8e6, .flops = 2e6, .f64 = true}, 1, 3e-3);
    EXPECT_EQ(axpy.level, "memory");
    EXPECT_FALSE(axpy.compute_bound);
    EXPECT_NEAR(axpy.bound, 2e6 / 24e6 * 10e9, 1e-3);
    // The copy again, measured cold: its data came from memory (10 GB/s best), not L2.
    const Placement cold = place(l, {.bytes = 512 << 10, .working_set = 512 << 10}, 1, 100e-6, true);
    EXPECT_EQ(cold.level, "memory");
    EXPECT_DOUBLE_EQ(cold.bound, 10e9);
    EXPECT_EQ(cold.verdict, "memory-bound (memory)");
    EXPECT_THROW(place(l, {.bytes = 1}, 1, 0.0), std::invalid_argument);
}

// A real measurement on this machine: every figure positive, the cache levels in the
// order the hardware has them (L1 at least as fast as memory), f32 faster than f64, and
// figures check_plausible accepts. The orderings are comparisons of two timings: on a
// machine busy with other work one of them can be disturbed, so a measurement that
// misses them is taken again, up to three times; a probe that gets them wrong misses
// every time.
TEST(Machine, MeasuresThisMachine) {
    std::string missed;
    for (int attempt = 0; attempt < 3; ++attempt) {
        int steps = 0;
        const Limits l = measure([&](std::string_view, double done) {
            EXPECT_GE(done, 0.0);
            EXPECT_LE(done, 1.0);
            ++steps;
        });
        EXPECT_GT(steps, 4);
        ASSERT_FALSE(l.one_core.empty());
        EXPECT_EQ(l.one_core.back().level, "memory");
        for (const auto* list : {&l.one_core, &l.all_cores}) {
            for (const Bandwidth& b : *list) {
                EXPECT_GT(b.read, 1e8) << b.level;
                EXPECT_GT(b.copy, 1e8) << b.level;
                EXPECT_GT(b.triad, 1e8) << b.level;
            }
        }
        EXPECT_GT(l.peak_f64_one_core, 1e8);
        EXPECT_NE(table(l).find("peak (FMA chains)"), std::string::npos);
        missed.clear();
        if (!(l.one_core.front().copy > l.one_core.back().copy * 0.8)) {
            missed += "L1 copy " + std::to_string(l.one_core.front().copy) + " B/s against memory's " +
                      std::to_string(l.one_core.back().copy) + "; ";
        }
        if (!(l.peak_f32_one_core > l.peak_f64_one_core * 1.2)) {  // twice the lanes in f32
            missed += "f32 peak " + std::to_string(l.peak_f32_one_core) + " FLOP/s against f64's " +
                      std::to_string(l.peak_f64_one_core) + "; ";
        }
        try {
            const Limits back = from_json(to_json(l), "mem");
            EXPECT_EQ(back.identity.vector_isa, l.identity.vector_isa);
        } catch (const std::runtime_error& e) {
            missed += e.what();
        }
        if (missed.empty()) break;
    }
    EXPECT_EQ(missed, "") << "three measurements in a row";
}

// The streaming probes the bandwidth figures come from compute what they claim, whatever
// the length against their rounds (4 or 8 vectors a round, then an element tail), at
// every vector width this CPU runs (an AVX-512 machine checks the AVX2 loops too).
TEST(Machine, StreamingProbesComputeTheirResults) {
    using vitals::machine::detail::Isa;
    int widths = 0;
    for (const Isa isa : {Isa::baseline, Isa::avx2, Isa::avx512}) {
        if (!vitals::machine::detail::runs(isa)) continue;
        ++widths;
        // Elements in a read round: eight vectors of 8 (AVX-512) or 4 (AVX2) words.
        const std::size_t read_round = isa == Isa::avx512 ? 64 : isa == Isa::avx2 ? 32 : 0;
        for (const std::size_t n : {0, 1, 7, 31, 32, 33, 63, 64, 65, 95, 1000}) {
            SCOPED_TRACE(testing::Message() << "isa " << static_cast<int>(isa) << ", n=" << n);
            std::vector<double> b(n), c(n), a(n + 1, -1.0);
            for (std::size_t i = 0; i < n; ++i) {
                b[i] = static_cast<double>(i);
                c[i] = 0.5 * static_cast<double>(i) + 1;
            }
            vitals::machine::detail::triad_kernel(a.data(), b.data(), c.data(), 2.0, n, isa);
            for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(a[i], b[i] + 2.0 * c[i]) << "i=" << i;
            EXPECT_EQ(a[n], -1.0) << "triad wrote past n";

            std::vector<std::uint64_t> from(n), to(n + 1, 7);
            for (std::size_t i = 0; i < n; ++i) from[i] = i * 3 + 1;
            vitals::machine::detail::copy_kernel(to.data(), from.data(), n, isa);
            for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(to[i], from[i]) << "i=" << i;
            EXPECT_EQ(to[n], 7u) << "copy wrote past n";

            // The plain loop sums every element; the vector loops only the tail past their
            // last whole round (their loads are volatile asm with nothing to return).
            const std::size_t summed_from = read_round == 0 ? 0 : n / read_round * read_round;
            std::uint64_t expected = 0;
            for (std::size_t i = summed_from; i < n; ++i) expected += from[i];
            EXPECT_EQ(vitals::machine::detail::read_kernel(from.data(), n, isa), expected);
        }
    }
#if defined(__x86_64__) && defined(__AVX2__)
    EXPECT_GE(widths, 2) << "a build for AVX2 runs the baseline loops and at least the AVX2 ones";
#endif
}
