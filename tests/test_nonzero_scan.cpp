// The CPU nonzero scan on its own: every density and length against a plain loop, both
// of its passes, blocks of staged positions, the switch between sparse and dense words,
// never a write past the output it is given, and its blocks on several threads.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "scan/masked_compress.hpp"
#include "scan/staged_hits.hpp"
#include "sanitizers.hpp"
#include "vitals/cpu_isa.hpp"
#include "vitals/threads.hpp"

namespace scan = vitals::kernels::scan;

namespace {

// Elements in contiguous storage, bool included (std::vector<bool> packs bits).
template <class T>
struct Values {
    explicit Values(std::size_t n) : data(new T[n]()), size(n) {}
    std::unique_ptr<T[]> data;
    std::size_t size;
};

template <class T>
std::vector<std::int64_t> plain_loop(const Values<T>& x) {
    std::vector<std::int64_t> hits;
    for (std::size_t i = 0; i < x.size; ++i) {
        if (x.data[i] != T(0)) hits.push_back(static_cast<std::int64_t>(i));
    }
    return hits;
}

template <class T, class From>
Values<T> values_of(const std::vector<From>& from) {
    Values<T> x(from.size());
    for (std::size_t i = 0; i < from.size(); ++i) x.data[i] = static_cast<T>(from[i]);
    return x;
}

// Both paths where this CPU runs AVX-512 VBMI2, the baseline elsewhere.
std::vector<scan::ScanPath> available_paths() {
    if (scan::avx512_vbmi2_supported()) return {scan::ScanPath::baseline, scan::ScanPath::avx512_vbmi2};
    return {scan::ScanPath::baseline};
}

// The paths compress_values runs here: the baseline's AVX2 where the build has it,
// AVX-512 where the CPU has it.
std::vector<scan::ScanPath> compress_paths() {
    std::vector<scan::ScanPath> paths;
    for (const scan::ScanPath path : available_paths()) {
        if (scan::compress_supported(path)) paths.push_back(path);
    }
    return paths;
}

std::string path_name(scan::ScanPath path) { return path == scan::ScanPath::baseline ? "baseline" : "AVX-512 VBMI2"; }

// Scans x and writes into an output of exactly the right size followed by sentinels:
// checks the positions, that no sentinel was touched, and that the blocks handed to
// callers hold the same positions, each within its block.
template <class T>
void expect_scan_matches(const Values<T>& x, const std::string& what) {
    const std::vector<std::int64_t> expected = plain_loop(x);
    const auto n = static_cast<std::int64_t>(x.size);
    const auto hits = static_cast<std::int64_t>(expected.size());
    for (const scan::ScanPath path : available_paths()) {
        const std::string where = what + (path == scan::ScanPath::baseline ? " (baseline)" : " (AVX-512 VBMI2)");
        const scan::StagedHits staged(x.data.get(), n, path);
        ASSERT_EQ(staged.count(), hits) << where;
        // The output at each of the four 8-byte offsets from a 32-byte boundary: the
        // widening writes indices alone up to the boundary, then a register at a time.
        constexpr std::int64_t kSentinel = -77;
        for (std::size_t shift = 0; shift < 4; ++shift) {
            std::vector<std::int64_t> out(expected.size() + 80 + 8, kSentinel);
            const std::uintptr_t address = reinterpret_cast<std::uintptr_t>(out.data());
            const std::size_t to_boundary = (32 - address % 32) % 32 / sizeof(std::int64_t);
            const std::size_t begin = to_boundary + shift;
            staged.write_indices(out.data() + begin);
            const std::vector<std::int64_t> written(out.begin() + static_cast<std::ptrdiff_t>(begin),
                                                    out.begin() + static_cast<std::ptrdiff_t>(begin) + hits);
            EXPECT_EQ(written, expected) << where << ", output " << shift << " entries past 32 bytes";
            for (std::size_t i = 0; i < out.size(); ++i) {
                if (i >= begin && i < begin + expected.size()) continue;
                ASSERT_EQ(out[i], kSentinel) << where << ": wrote outside the output at entry " << i << ", which starts at "
                                             << begin;
            }
        }
        // Blocks may be handed over on several threads at once: each fills its own slot.
        const std::int64_t blocks = (n + scan::kBlock - 1) / scan::kBlock;
        std::vector<std::vector<std::int64_t>> per_block(static_cast<std::size_t>(blocks));
        std::vector<std::int64_t> firsts(static_cast<std::size_t>(blocks), -1);
        staged.for_each_block([&](std::int64_t start, const std::uint16_t* positions, std::int64_t count, std::int64_t first) {
            ASSERT_EQ(start % scan::kBlock, 0) << where;
            ASSERT_LT(start, n) << where;
            const auto block = static_cast<std::size_t>(start / scan::kBlock);
            firsts[block] = first;
            for (std::int64_t i = 0; i < count; ++i) per_block[block].push_back(start + positions[i]);
        });
        std::vector<std::int64_t> from_blocks;
        for (std::size_t block = 0; block < per_block.size(); ++block) {
            EXPECT_EQ(firsts[block], static_cast<std::int64_t>(from_blocks.size())) << where << ": block " << block;
            for (const std::int64_t hit : per_block[block]) {
                EXPECT_EQ(hit / scan::kBlock, static_cast<std::int64_t>(block)) << where << ": a hit outside its block";
                from_blocks.push_back(hit);
            }
        }
        EXPECT_EQ(from_blocks, expected) << where;
    }
}

template <class T>
Values<T> random_mask(std::int64_t n, double density, unsigned seed) {
    std::mt19937 engine(seed);
    std::bernoulli_distribution hit(density);
    Values<T> x(static_cast<std::size_t>(n));
    for (std::size_t i = 0; i < x.size; ++i) x.data[i] = hit(engine) ? T(1) : T(0);
    return x;
}

template <class T>
void check_every_density_and_length() {
    for (const std::int64_t n : {0, 1, 31, 63, 64, 65, 127, 128, 129, 255, 256, 257, 1000, 4099, 70001}) {
        for (const double density : {0.0, 0.01, 0.1, 0.25, 0.3, 0.5, 0.9, 1.0}) {
            expect_scan_matches(random_mask<T>(n, density, static_cast<unsigned>(n) + 7),
                                "n=" + std::to_string(n) + " density=" + std::to_string(density));
        }
    }
}

}  // namespace

TEST(NonzeroScan, EveryDensityAndLengthMatchesAPlainLoop) {
    check_every_density_and_length<bool>();
    check_every_density_and_length<float>();
    check_every_density_and_length<double>();
    check_every_density_and_length<std::int64_t>();
}

TEST(NonzeroScan, WordsSwitchBetweenSparseAndDense) {
    // Runs of dense and sparse 64-element words, and words of exactly kSparseWordHits and one more
    // (the switch between writing hit by hit and through the position table).
    std::vector<int> pattern;
    for (int block = 0; block < 40; ++block) {
        const int hits_in_word = (block * 7) % 65;  // 0 .. 64 hits
        for (int j = 0; j < 64; ++j) pattern.push_back((j * 37) % 64 < hits_in_word ? 1 : 0);
        for (int j = 0; j < 64; ++j) pattern.push_back(j < scan::kSparseWordHits + block % 2 ? 1 : 0);
    }
    expect_scan_matches(values_of<bool>(pattern), "clustered bool");
    expect_scan_matches(values_of<double>(pattern), "clustered double");
    const std::vector<int> reversed(pattern.rbegin(), pattern.rend());
    expect_scan_matches(values_of<std::int64_t>(reversed), "clustered int64, reversed");
}

TEST(NonzeroScan, NanIsAHitAndNegativeZeroIsNot) {
    const float nan = std::numeric_limits<float>::quiet_NaN();
    std::vector<float> specials(200, 0.0f);
    specials[3] = nan;
    specials[70] = -0.0f;
    specials[71] = -1.0f;
    specials[199] = std::numeric_limits<float>::infinity();
    const Values<float> x = values_of<float>(specials);
    expect_scan_matches(x, "float specials");
    expect_scan_matches(values_of<double>(specials), "double specials");
    EXPECT_EQ(plain_loop(x), (std::vector<std::int64_t>{3, 71, 199}));
}

TEST(NonzeroScan, BlocksOfStagedPositionsMeetExactly) {
    // Lengths around the 65536-element blocks, with hits on both sides of each edge, a
    // block of all hits (more than 16 bits count) and a block of none between hits.
    for (const std::int64_t n : {scan::kBlock - 1, scan::kBlock, scan::kBlock + 1, 3 * scan::kBlock + 70}) {
        Values<bool> x(static_cast<std::size_t>(n));
        for (std::int64_t i = 0; i < n; ++i) {
            const std::int64_t in_block = i % scan::kBlock;
            const std::int64_t block = i / scan::kBlock;
            const bool edge = in_block < 3 || in_block >= scan::kBlock - 3;
            x.data[static_cast<std::size_t>(i)] = block == 1 ? false : (block == 2 || edge || i % 97 == 0);
        }
        expect_scan_matches(x, "bool, n=" + std::to_string(n));
    }
    expect_scan_matches(random_mask<float>(2 * scan::kBlock + 5, 0.5, 3), "float over three blocks");
    Values<std::int64_t> all(static_cast<std::size_t>(scan::kBlock + 9));
    for (std::size_t i = 0; i < all.size; ++i) all.data[i] = -1;
    expect_scan_matches(all, "int64, every element");
}

TEST(NonzeroScan, BoolBytesOtherThanOneAreHitsInPlace) {
    // Bool storage written as raw bytes: any non-zero byte is one hit at its own position,
    // in full words (vector compares) and in the last, partial word (one at a time).
    constexpr std::int64_t n = 100;
    Values<bool> mask(n);
    auto* bytes = reinterpret_cast<unsigned char*>(mask.data.get());
    bytes[5] = 0x02;
    bytes[70] = 0x40;
    bytes[98] = 0x80;
    bytes[99] = 0x02;
    const std::vector<std::int64_t> expected = {5, 70, 98, 99};
    for (const scan::ScanPath path : available_paths()) {
        const scan::StagedHits staged(mask.data.get(), n, path);
        ASSERT_EQ(staged.count(), 4);
        std::vector<std::int64_t> out(4);
        staged.write_indices(out.data());
        EXPECT_EQ(out, expected) << (path == scan::ScanPath::baseline ? "baseline" : "AVX-512 VBMI2");
    }
    for (const scan::ScanPath path : compress_paths()) {
        std::vector<float> values(n);
        for (std::int64_t i = 0; i < n; ++i) values[static_cast<std::size_t>(i)] = static_cast<float>(i);
        std::vector<float> selected(4);
        scan::compress_values(mask.data.get(), values.data(), n, selected.data(), 4, path);
        EXPECT_EQ(selected, (std::vector<float>{5, 70, 98, 99})) << path_name(path);
    }
}

// The count a dense mask's other blocks get instead of a staging, on raw bool bytes of
// any value: the first block dense, the others at one density each, the last partial
// (not a whole number of registers). Each block's count against a plain count.
TEST(NonzeroScan, CountedBoolBytesMatchAPlainCount) {
    if (!scan::compress_supported()) GTEST_SKIP() << "compress_values runs nowhere here, so every block is staged";
    std::mt19937 engine(23);
    std::uniform_int_distribution<int> byte(1, 255);
    std::uniform_real_distribution<double> uniform(0.0, 1.0);
    const std::int64_t n = 4 * scan::kBlock + 1000 + 17;
    const double densities[] = {0.6, 0.0, 1.0, 0.01, 0.5};
    Values<bool> mask(static_cast<std::size_t>(n));
    auto* bytes = reinterpret_cast<unsigned char*>(mask.data.get());
    std::vector<std::int64_t> expected(5, 0);
    for (std::int64_t i = 0; i < n; ++i) {
        const std::int64_t block = i / scan::kBlock;
        const bool hit = uniform(engine) < densities[block];
        bytes[i] = hit ? static_cast<unsigned char>(byte(engine)) : 0;
        expected[static_cast<std::size_t>(block)] += hit;
    }
    for (const scan::ScanPath path : available_paths()) {
        const scan::StagedHits counted(mask.data.get(), n, path, scan::Staging::counts_when_dense);
        ASSERT_FALSE(counted.has_positions()) << path_name(path);
        counted.for_each_block([&](std::int64_t start, const std::uint16_t*, std::int64_t hits, std::int64_t) {
            EXPECT_EQ(hits, expected[static_cast<std::size_t>(start / scan::kBlock)]) << path_name(path) << ", block at " << start;
        });
    }
    const std::vector<float> values(static_cast<std::size_t>(n), 1.0f);
    const scan::StagedValues<float, bool> staged(mask.data.get(), values.data(), n);
    ASSERT_TRUE(staged.dense());
    std::int64_t total = 0;
    for (const std::int64_t hits : expected) total += hits;
    EXPECT_EQ(staged.count(), total);
}

// compress_values against a plain loop: every length around a register and a word,
// every density, into an output of exactly the right size followed by sentinels.
template <class T, class M>
void check_compress_values(scan::ScanPath path) {
    for (const std::int64_t n : {0, 1, 7, 8, 9, 15, 16, 17, 63, 64, 65, 1000, 4099}) {
        for (const double density : {0.0, 0.1, 0.5, 0.9, 1.0}) {
            const Values<M> mask = random_mask<M>(n, density, static_cast<unsigned>(n) + 3);
            Values<T> values(static_cast<std::size_t>(n));
            for (std::size_t i = 0; i < values.size; ++i) values.data[i] = static_cast<T>(i) + T(0.5);
            std::vector<T> expected;
            for (std::size_t i = 0; i < values.size; ++i) {
                if (mask.data[i] != M(0)) expected.push_back(values.data[i]);
            }
            const auto count = static_cast<std::int64_t>(expected.size());
            const T sentinel = T(-77);
            std::vector<T> out(expected.size() + 40, sentinel);
            scan::compress_values(mask.data.get(), values.data.get(), n, out.data(), count, path);
            const std::string where = path_name(path) + " n=" + std::to_string(n) + " density=" + std::to_string(density);
            EXPECT_EQ(std::vector<T>(out.begin(), out.begin() + count), expected) << where;
            for (std::size_t i = expected.size(); i < out.size(); ++i) ASSERT_EQ(out[i], sentinel) << where << ", entry " << i;
        }
    }
}

TEST(NonzeroScan, CompressedValuesMatchAPlainLoop) {
    if (compress_paths().empty()) GTEST_SKIP() << "compress_values needs AVX2 in the build or AVX-512 in the CPU";
    for (const scan::ScanPath path : compress_paths()) {
        check_compress_values<float, bool>(path);
        check_compress_values<float, double>(path);
        check_compress_values<double, float>(path);
        check_compress_values<double, std::int64_t>(path);
    }
}

TEST(NonzeroScan, CompressRunsWhereItsPathDoes) {
    const std::vector<float> x(4, 1.0f);
    std::vector<float> out(4);
    for (const scan::ScanPath path : {scan::ScanPath::baseline, scan::ScanPath::avx512_vbmi2}) {
        if (!scan::compress_supported(path)) {
            EXPECT_THROW(scan::compress_values(x.data(), x.data(), 4, out.data(), 4, path), std::logic_error) << path_name(path);
        }
    }
    EXPECT_EQ(scan::compress_supported(scan::ScanPath::avx512_vbmi2), scan::avx512_vbmi2_supported());
}

TEST(NonzeroScan, CompressingAChangedMaskIsRefusedNotOverrun) {
    if (compress_paths().empty()) GTEST_SKIP() << "compress_values needs AVX2 in the build or AVX-512 in the CPU";
    for (const scan::ScanPath path : compress_paths()) {
        // A count smaller than the mask's hits, as if the mask gained hits after it was
        // staged: refused before anything is written past the count, even one entry.
        const std::vector<float> mask(200, 1.0f);
        const std::vector<float> values(200, 2.0f);
        for (const std::int64_t count : {150, 199}) {
            std::vector<float> out(250, -1.0f);
            EXPECT_THROW(scan::compress_values(mask.data(), values.data(), 200, out.data(), count, path), std::logic_error);
            for (auto i = static_cast<std::size_t>(count); i < out.size(); ++i) {
                ASSERT_EQ(out[i], -1.0f) << path_name(path) << ", count " << count << ", entry " << i;
            }
        }
        std::vector<float> out(250, -1.0f);
        // A count larger than the hits: refused too, rather than leaving entries unwritten.
        EXPECT_THROW(scan::compress_values(mask.data(), values.data(), 200, out.data(), 201, path), std::logic_error);
    }
}

// A mask over three blocks and a part, its first block at one density, the rest at another.
Values<float> two_density_mask(double first, double rest) {
    const std::int64_t n = 3 * scan::kBlock + 300;
    Values<float> mask(static_cast<std::size_t>(n));
    std::mt19937 random(17);
    std::uniform_real_distribution<double> uniform(0.0, 1.0);
    for (std::int64_t i = 0; i < n; ++i) mask.data[i] = uniform(random) < (i < scan::kBlock ? first : rest) ? 1.0f : 0.0f;
    return mask;
}

TEST(NonzeroScan, ADenseFirstBlockLeavesCountsOnly) {
    if (!scan::compress_supported()) GTEST_SKIP() << "compress_values runs nowhere here, so every block is staged";
    const Values<float> mask = two_density_mask(0.6, 0.05);
    const std::vector<std::int64_t> expected = plain_loop(mask);
    const auto n = static_cast<std::int64_t>(mask.size);
    for (const scan::ScanPath path : available_paths()) {
        const scan::StagedHits counted(mask.data.get(), n, path, scan::Staging::counts_when_dense);
        EXPECT_FALSE(counted.has_positions()) << path_name(path);
        ASSERT_EQ(counted.count(), static_cast<std::int64_t>(expected.size())) << path_name(path);
        // Each block's count and first hit, against the plain loop's; no positions.
        counted.for_each_block([&](std::int64_t start, const std::uint16_t* positions, std::int64_t hits, std::int64_t first) {
            const auto before = std::lower_bound(expected.begin(), expected.end(), start) - expected.begin();
            const auto through = std::lower_bound(expected.begin(), expected.end(), start + scan::kBlock) - expected.begin();
            EXPECT_EQ(positions, nullptr);
            EXPECT_EQ(first, before) << path_name(path) << ", block at " << start;
            EXPECT_EQ(hits, through - before) << path_name(path) << ", block at " << start;
        });
        std::vector<std::int64_t> out(expected.size());
        EXPECT_THROW(counted.write_indices(out.data()), std::logic_error);
        // Asked for positions, the same mask stages every block.
        const scan::StagedHits staged(mask.data.get(), n, path);
        ASSERT_TRUE(staged.has_positions());
        staged.write_indices(out.data());
        EXPECT_EQ(out, expected) << path_name(path);
    }
}

TEST(NonzeroScan, ASparseFirstBlockStagesEveryBlock) {
    const Values<float> mask = two_density_mask(0.05, 0.6);
    const std::vector<std::int64_t> expected = plain_loop(mask);
    for (const scan::ScanPath path : available_paths()) {
        const scan::StagedHits staged(mask.data.get(), static_cast<std::int64_t>(mask.size), path,
                                      scan::Staging::counts_when_dense);
        ASSERT_TRUE(staged.has_positions()) << path_name(path);
        std::vector<std::int64_t> out(expected.size());
        staged.write_indices(out.data());
        EXPECT_EQ(out, expected) << path_name(path);
    }
}

// StagedValues against a plain loop: the values, the count, whether it went dense, and
// no entry written past the count. The values sit in storage exactly n long, so a round
// that loaded past the array's last word would read outside it (reported under ASan).
template <class T, class M>
void expect_staged_values_match(const Values<M>& mask, const std::string& what, int threads = 1) {
    const auto n = static_cast<std::int64_t>(mask.size);
    Values<T> values(mask.size);
    for (std::size_t i = 0; i < values.size; ++i) values.data[i] = static_cast<T>(i) + T(0.5);
    std::vector<T> expected;
    for (std::size_t i = 0; i < mask.size; ++i) {
        if (mask.data[i] != M(0)) expected.push_back(values.data[i]);
    }
    const vitals::ThreadCountScope scope(threads);
    const scan::StagedValues<T, M> staged(mask.data.get(), values.data.get(), n);
    ASSERT_EQ(staged.count(), static_cast<std::int64_t>(expected.size())) << what;
    const T sentinel = T(-77);
    std::vector<T> out(expected.size() + 40, sentinel);
    staged.write(out.data());
    EXPECT_EQ(std::vector<T>(out.begin(), out.begin() + staged.count()), expected) << what;
    for (std::size_t i = expected.size(); i < out.size(); ++i) ASSERT_EQ(out[i], sentinel) << what << ", entry " << i;
}

template <class T, class M>
void check_staged_values() {
    for (const std::int64_t n : {0, 1, 7, 8, 9, 63, 64, 65, 255, 256, 257, 1000, 4099, 70001}) {
        for (const double density : {0.0, 0.01, 0.1, 0.2, 0.5, 0.9, 1.0}) {
            expect_staged_values_match<T>(random_mask<M>(n, density, static_cast<unsigned>(n) + 5),
                                          "n=" + std::to_string(n) + " density=" + std::to_string(density));
        }
    }
    // A block exactly full, and the array's last word with one hit, at its first element:
    // every round of that word would load past the end.
    for (const std::int64_t n : {scan::kBlock, 2 * scan::kBlock}) {
        Values<M> mask(static_cast<std::size_t>(n));
        mask.data[static_cast<std::size_t>(n - 64)] = M(1);
        mask.data[0] = M(1);
        expect_staged_values_match<T>(mask, "one hit in the last word, n=" + std::to_string(n));
    }
}

TEST(NonzeroScan, StagedValuesMatchAPlainLoop) {
    check_staged_values<float, bool>();
    check_staged_values<float, float>();
    check_staged_values<double, std::int64_t>();
    check_staged_values<double, double>();
}

TEST(NonzeroScan, StagedValuesCompressOnceTheFirstBlockIsDense) {
    const Values<float> dense_first = two_density_mask(0.6, 0.05);
    const auto n = static_cast<std::int64_t>(dense_first.size);
    std::vector<float> values(dense_first.size, 3.0f);
    const scan::StagedValues<float, float> dense(dense_first.data.get(), values.data(), n);
    EXPECT_EQ(dense.dense(), scan::compress_supported(scan::ScanPath::baseline));
    expect_staged_values_match<float>(dense_first, "dense first block");
    const Values<float> sparse_first = two_density_mask(0.05, 0.6);
    const scan::StagedValues<float, float> sparse(sparse_first.data.get(), values.data(), n);
    EXPECT_FALSE(sparse.dense());
    expect_staged_values_match<float>(sparse_first, "sparse first block");
}

TEST(NonzeroScan, StagedValuesRefuseAMaskThatChangedBeforeADenseWrite) {
    if (!scan::compress_supported(scan::ScanPath::baseline)) GTEST_SKIP() << "a dense write needs AVX2 in the build";
    Values<float> mask = two_density_mask(0.6, 0.05);
    const auto n = static_cast<std::int64_t>(mask.size);
    std::vector<float> values(mask.size, 3.0f);
    const scan::StagedValues<float, float> staged(mask.data.get(), values.data(), n);
    ASSERT_TRUE(staged.dense());
    for (std::int64_t i = scan::kBlock; i < 2 * scan::kBlock; ++i) mask.data[static_cast<std::size_t>(i)] = 1.0f;
    std::vector<float> out(static_cast<std::size_t>(staged.count()) + 40, -1.0f);
    EXPECT_THROW(staged.write(out.data()), std::logic_error);
    for (auto i = static_cast<std::size_t>(staged.count()); i < out.size(); ++i) ASSERT_EQ(out[i], -1.0f) << "entry " << i;
}

TEST(NonzeroScan, TheWidePathRunsOnlyWhereTheCpuHasIt) {
    const std::vector<float> x(10, 1.0f);
    if (scan::avx512_vbmi2_supported()) {
        EXPECT_EQ(scan::StagedHits(x.data(), 10, scan::ScanPath::avx512_vbmi2).count(), 10);
        GTEST_SKIP() << "this CPU runs AVX-512 VBMI2; the refusal is checked on CPUs without it";
    }
    EXPECT_THROW(scan::StagedHits(x.data(), 10, scan::ScanPath::avx512_vbmi2), std::logic_error);
}

// VITALS_MAX_CPU_ISA (its values are checked in test_cpu_isa.cpp): what this process was
// started with decides the kernels' own choice, and never allows a path the CPU lacks.
TEST(NonzeroScan, MaxCpuIsaCapsTheKernelsChoice) {
    const char* set = std::getenv("VITALS_MAX_CPU_ISA");
    const bool capped = vitals::max_cpu_isa_from(set) == vitals::MaxCpuIsa::avx2;
    EXPECT_EQ(scan::avx512_vbmi2_allowed(), scan::avx512_vbmi2_supported() && !capped);
}

namespace {

// The threads for_each_block_index ran each of `blocks` blocks on.
std::vector<std::thread::id> threads_of_blocks(std::int64_t blocks) {
    std::vector<std::thread::id> ran_on(static_cast<std::size_t>(blocks));
    scan::for_each_block_index(blocks, [&](std::int64_t block) {
        // Long enough that one thread cannot take every block before the other starts.
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
        ran_on[static_cast<std::size_t>(block)] = std::this_thread::get_id();
    });
    return ran_on;
}

std::size_t distinct(std::vector<std::thread::id> ids) {
    std::sort(ids.begin(), ids.end());
    return static_cast<std::size_t>(std::unique(ids.begin(), ids.end()) - ids.begin());
}

}  // namespace

TEST(NonzeroScan, BlocksShareTheIntraOpThreads) {
#if defined(VITALS_TEST_TSAN)
    GTEST_SKIP() << VITALS_TSAN_SKIPS_OPENMP;
#endif
    const std::thread::id caller = std::this_thread::get_id();
    {
        const vitals::ThreadCountScope two(2);
        EXPECT_EQ(distinct(threads_of_blocks(8)), 2u) << "8 blocks on 2 intra-op threads";
        const std::vector<std::thread::id> few = threads_of_blocks(scan::kParallelBlocks - 1);
        EXPECT_EQ(distinct(few), 1u) << "fewer blocks than kParallelBlocks stay on the caller";
        EXPECT_EQ(few.front(), caller);
    }
    const vitals::ThreadCountScope one(1);
    const std::vector<std::thread::id> alone = threads_of_blocks(8);
    EXPECT_EQ(distinct(alone), 1u);
    EXPECT_EQ(alone.front(), caller);
}

TEST(NonzeroScan, AThrowingBlockIsRethrownAfterTheOthersRan) {
#if defined(VITALS_TEST_TSAN)
    GTEST_SKIP() << VITALS_TSAN_SKIPS_OPENMP;
#endif
    for (const int threads : {1, 2}) {
        const vitals::ThreadCountScope scope(threads);
        std::vector<int> ran(16, 0);
        try {
            scan::for_each_block_index(16, [&](std::int64_t block) {
                if (block == 5 || block == 11) throw std::runtime_error("block " + std::to_string(block));
                ran[static_cast<std::size_t>(block)] = 1;
            });
            ADD_FAILURE() << "nothing was thrown on " << threads << " thread(s)";
        } catch (const std::runtime_error& e) {
            const std::string what = e.what();
            EXPECT_TRUE(what == "block 5" || what == "block 11") << what;
        }
        for (std::size_t block = 0; block < ran.size(); ++block) {
            EXPECT_EQ(ran[block], block == 5 || block == 11 ? 0 : 1) << "block " << block << " on " << threads << " thread(s)";
        }
    }
}

TEST(NonzeroScan, TwoThreadsStageAndWriteWhatOneWould) {
#if defined(VITALS_TEST_TSAN)
    GTEST_SKIP() << VITALS_TSAN_SKIPS_OPENMP;
#endif
    // Enough blocks to share, a partial last one, hits on both sides of every edge.
    const vitals::ThreadCountScope two(2);
    const std::int64_t n = 6 * scan::kBlock + 333;
    for (const double density : {0.001, 0.1, 0.5, 1.0}) {
        expect_scan_matches(random_mask<bool>(n, density, 11), "bool on two threads, density=" + std::to_string(density));
        expect_scan_matches(random_mask<float>(n, density, 12), "float on two threads, density=" + std::to_string(density));
        expect_staged_values_match<float>(random_mask<bool>(n, density, 13),
                                          "values on two threads, density=" + std::to_string(density), 2);
    }
}
