// The CPU scan behind nonzero and masked_select, in two passes. The first reads the
// input once and stages each hit as a 16-bit position inside its block of kBlock
// elements, counting them; the caller then allocates its result at the exact size, and
// the second pass writes it from the staged positions alone (the input is not read
// again, so the count and the writes always agree). Off AVX-512, masked_select stages
// the values at its hits instead of their positions (StagedValues); a dense one reads
// the mask again (compress_values), and checks the count. Both passes
// share the blocks out among the intra-op threads (OpenMP: as many as a Timer's
// num_threads grants, all the cores outside one), each block on its own. Host-only;
// instantiated for the tensor element types (float, double, bool, std::int64_t).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>

namespace vitals::kernels::nonzero_scan {

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

// masked_select's second pass for a dense mask: the values where mask[0, n) is non-zero,
// in order, compressed a register at a time, which beats staging them (a gather at
// StagedHits' positions, or StagedValues) once hits are common. On AVX-512 (avx512_vbmi2) a compress instruction packs
// 16 floats or 8 doubles; on the baseline of an AVX2 build a lane permutation from a
// table of positions packs 8 floats, or 4 doubles, per byte or half byte of hit bits.
// `count` is what the first pass counted on the mask: exactly that many values are written,
// and nothing at out[count] or beyond. Throws std::logic_error if the mask now holds more
// or fewer hits (it changed since it was staged), or where compress_supported(path) is
// false. masked_select calls it a block at a time, with the block's count.
template <class T, class M>
void compress_values(const M* mask, const T* values, std::int64_t n, T* out, std::int64_t count,
                     ScanPath path = ScanPath::best);

// Whether compress_values runs on `path` here: AVX-512 where the CPU has it, the
// baseline where the build has AVX2; `best` as StagedHits picks it.
bool compress_supported(ScanPath path = ScanPath::best);

// Whether compress_values on `path` beats staging the values otherwise, for `hits` hits
// among n elements: a gather at StagedHits' positions on AVX-512 (from 25% hits),
// StagedValues on the baseline (from 35%). Both thresholds are measured crossovers (1M
// floats, one thread; Zen 4 for AVX-512, Zen 3 for AVX2).
bool compress_pays(std::int64_t hits, std::int64_t n, ScanPath path = ScanPath::best);

// The most entries a word's value staging writes past its last hit (a round of eight, or
// a register of 8 floats or 4 doubles), which the block's next word overwrites.
inline constexpr std::int64_t kValueSlack = 8;

// masked_select's first pass on the baseline path (where AVX-512 VBMI2 is not allowed):
// the value at each hit of mask[0, n) staged as the mask is read, into a region per
// block, so that the second pass is a copy: staging positions (StagedHits) and gathering
// from them reads the positions back and each hit's value on its own, which is slower.
// Blocks go as StagedHits' do; once the first block shows a dense mask (compress_pays on the
// baseline), the others are only counted, and write() compresses the values from the
// mask (compress_values). Temporary memory, from the CPU allocator: sizeof(T) per
// element reserved (and 16 bytes per block), about sizeof(T) per hit written.
template <class T, class M>
class StagedValues {
public:
    StagedValues(const M* mask, const T* values, std::int64_t n);
    ~StagedValues();
    StagedValues(const StagedValues&) = delete;
    StagedValues& operator=(const StagedValues&) = delete;

    std::int64_t count() const { return count_; }

    // Whether the first block was dense: the other blocks were counted, not staged.
    bool dense() const { return dense_; }

    // Writes the count() values to out[0, count()), and nothing past it: the staged
    // blocks copied, or where dense(), compressed from the mask and the values again
    // (std::logic_error if the mask's hits changed since). On the intra-op threads, as
    // the scan's blocks.
    void write(T* out) const;

private:
    static constexpr std::int64_t kBlockRegion = kBlock + kValueSlack;
    T* block_values(std::int64_t block) const { return staged_ + block * kBlockRegion; }

    const M* mask_;
    const T* values_;
    std::int64_t n_;
    void* scratch_ = nullptr;
    std::size_t scratch_bytes_ = 0;
    std::int64_t* block_hits_ = nullptr;   // hits per block
    std::int64_t* block_first_ = nullptr;  // hits in the blocks before each
    T* staged_ = nullptr;                  // the blocks' regions, one after another
    std::int64_t blocks_ = 0;
    std::int64_t count_ = 0;
    bool dense_ = false;
};

}  // namespace vitals::kernels::nonzero_scan
