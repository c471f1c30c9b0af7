// The scan's first pass and the blocks both passes share. The first pass reads the
// input once and stages each hit as a 16-bit position inside its block of kBlock
// elements, counting them; the caller then allocates its result at the exact size, and
// the second pass writes it from the staged positions alone (the input is not read
// again, so the count and the writes always agree). Off AVX-512, masked_select stages
// the values at its hits instead (masked_compress.hpp). Both passes share the blocks out
// among the intra-op threads (OpenMP: as many as a Timer's num_threads grants, all the
// cores outside one), each block on its own. Host-only; instantiated for the tensor
// element types (float, double, bool, std::int64_t). Internal to the scan, and to its
// tests and bench; the rest of the kernel set calls scan.hpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>

namespace vitals::kernels::scan {

// Elements per block of staged positions: a block's positions fit in 16 bits.
inline constexpr std::int64_t kBlock = std::int64_t{1} << 16;

// The most positions a word's staging writes past its last hit, which the block's next
// word overwrites: AVX-512 stores 32 at a time, a baseline word up to 16 past its last hit.
inline constexpr std::int64_t kStagingSlack = 32;

// The fewest blocks the passes share among threads: below it, waking a thread costs
// about what the block saves.
inline constexpr std::int64_t kParallelBlocks = 4;

// Runs fn(block) for each block in [0, blocks), on the intra-op threads where there are
// kParallelBlocks or more (one after another otherwise): several at once, in no set
// order, so fn writes only what its block owns. The first exception a call throws is
// rethrown here, after every call has ended.
void for_each_block_index(std::int64_t blocks, const std::function<void(std::int64_t)>& fn);

// The scan takes 64 elements at a time; on the baseline path of an AVX2 build a word of
// up to this many hits is staged from its bit positions in one round of eight, a denser
// one 16 elements at a time through tables of positions, which beats further rounds of
// eight. Without AVX2 every word goes from its bit positions, eight at a time.
inline constexpr int kSparseWordHits = 8;

// The code the first pass runs: `best` is AVX-512 VBMI2 where avx512_vbmi2_allowed(),
// else the baseline the library was compiled for.
enum class ScanPath { best, baseline, avx512_vbmi2 };

// Whether this CPU runs the AVX-512 VBMI2 path (not under Valgrind, which hides it).
bool avx512_vbmi2_supported();

// Whether `best` and masked_select's dense pass run AVX-512: the CPU has it and
// VITALS_MAX_CPU_ISA (vitals/cpu_isa.hpp) allows it. Throws as vitals::max_cpu_isa.
bool avx512_vbmi2_allowed();

// What the first pass keeps. masked_select asks for counts_when_dense: once the first
// block shows a mask dense enough for compress_values (compress_pays), the other blocks
// are only counted, since a dense mask's values are compressed from the mask and the
// positions would go unread (a count costs a quarter of a staging on AVX2).
enum class Staging { positions, counts_when_dense };

// The non-zero elements of x[0, n) (NaN counts as non-zero, -0.0 as zero), found by the
// first pass. Temporary memory, from the CPU allocator (so a memory profile shows it):
// 2 bytes per element reserved (and 80 per block), of which about 2 bytes per hit are
// written.
class StagedHits {
public:
    // Asking for avx512_vbmi2 on a CPU without it throws std::logic_error.
    template <class T>
    StagedHits(const T* x, std::int64_t n, ScanPath path = ScanPath::best, Staging staging = Staging::positions);
    ~StagedHits();
    StagedHits(const StagedHits&) = delete;
    StagedHits& operator=(const StagedHits&) = delete;

    std::int64_t count() const { return count_; }

    // False where Staging::counts_when_dense found the mask dense: blocks have counts
    // and no positions.
    bool has_positions() const { return has_positions_; }

    // Calls emit(block_start, positions, hits, first) for every block (through
    // for_each_block_index: on several threads at once, in no set order): the block's
    // `hits` positions relative to block_start, ascending (null where !has_positions()),
    // which are hits [first, first + hits) of the whole scan.
    template <class Emit>
    void for_each_block(Emit&& emit) const {
        for_each_block_index(blocks_, [&](std::int64_t block) {
            emit(block * kBlock, has_positions_ ? static_cast<const std::uint16_t*>(block_positions(block)) : nullptr,
                 block_hits_[block], block_first_[block]);
        });
    }

    // The second pass of a 1-D nonzero: writes the count() positions as int64 to
    // out[0, count()), and nothing past it. Throws std::logic_error where
    // !has_positions().
    void write_indices(std::int64_t* out) const;

private:
    // Each block stages into a region of its own, with room for the positions its last
    // word may write past its last hit: blocks staged at once never touch each other's.
    static constexpr std::int64_t kBlockRegion = kBlock + kStagingSlack;
    std::uint16_t* block_positions(std::int64_t block) const { return positions_ + block * kBlockRegion; }

    void* scratch_ = nullptr;
    std::size_t scratch_bytes_ = 0;
    std::int64_t* block_hits_ = nullptr;   // hits per block
    std::int64_t* block_first_ = nullptr;  // hits in the blocks before each
    std::uint16_t* positions_ = nullptr;   // the blocks' regions, one after another
    std::int64_t blocks_ = 0;
    std::int64_t count_ = 0;
    bool has_positions_ = true;
};

}  // namespace vitals::kernels::scan
