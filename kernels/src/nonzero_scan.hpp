// The CPU scan behind nonzero and masked_select, in two passes. The first reads the
// input once and stages each hit as a 16-bit position inside its block of kBlock
// elements, counting them; the caller then allocates its result at the exact size, and
// the second pass writes it from the staged positions alone (the input is not read
// again, so the count and the writes always agree). A dense masked_select on AVX-512
// reads the mask again instead (compress_values), and checks the count. Host-only;
// instantiated for the tensor element types (float, double, bool, std::int64_t).
#pragma once

#include <cstddef>
#include <cstdint>

namespace vitals::kernels::nonzero_scan {

// Elements per block of staged positions: a block's positions fit in 16 bits.
inline constexpr std::int64_t kBlock = std::int64_t{1} << 16;

// The scan takes 64 elements at a time; on the baseline path of an AVX2 build a word of
// up to this many hits is staged from its bit positions, four at a time, a denser one
// through a table of positions
// (measured crossover on Zen 4: 24-32). Without AVX2 every word goes hit by hit.
inline constexpr int kSparseWordHits = 24;

// The code the first pass runs: `best` is AVX-512 VBMI2 where avx512_vbmi2_allowed(),
// else the baseline the library was compiled for.
enum class ScanPath { best, baseline, avx512_vbmi2 };

// Whether this CPU runs the AVX-512 VBMI2 path (not under Valgrind, which hides it).
bool avx512_vbmi2_supported();

// Whether `best` and masked_select's dense pass run AVX-512: the CPU has it and
// VITALS_MAX_CPU_ISA (vitals/cpu_isa.hpp) allows it. Throws as vitals::max_cpu_isa.
bool avx512_vbmi2_allowed();

// The non-zero elements of x[0, n) (NaN counts as non-zero, -0.0 as zero), found by the
// first pass. Temporary memory, from the CPU allocator (so a memory profile shows it):
// 2 bytes per element reserved (and 8 per block), of which about 2 bytes per hit are
// written.
class StagedHits {
public:
    // Asking for avx512_vbmi2 on a CPU without it throws std::logic_error.
    template <class T>
    StagedHits(const T* x, std::int64_t n, ScanPath path = ScanPath::best);
    ~StagedHits();
    StagedHits(const StagedHits&) = delete;
    StagedHits& operator=(const StagedHits&) = delete;

    std::int64_t count() const { return count_; }

    // Calls emit(block_start, positions, hits) for each block that holds hits, in
    // ascending order: `hits` positions relative to block_start, ascending.
    template <class Emit>
    void for_each_block(Emit&& emit) const {
        const std::uint16_t* positions = positions_;
        for (std::int64_t block = 0; block < blocks_; ++block) {
            const std::int64_t hits = block_hits_[block];
            if (hits != 0) emit(block * kBlock, static_cast<const std::uint16_t*>(positions), hits);
            positions += hits;
        }
    }

    // The second pass of a 1-D nonzero: writes the count() positions as int64 to
    // out[0, count()), and nothing past it.
    void write_indices(std::int64_t* out) const;

private:
    void* scratch_ = nullptr;
    std::size_t scratch_bytes_ = 0;
    std::int64_t* block_hits_ = nullptr;  // hits per block
    std::uint16_t* positions_ = nullptr;  // every block's positions, one after another
    std::int64_t blocks_ = 0;
    std::int64_t count_ = 0;
};

// masked_select's second pass for a dense mask on AVX-512 (where avx512_vbmi2_supported()):
// the values where mask[0, n) is non-zero, in order, compressed a register at a time
// (16 floats or 8 doubles), which beats a gather at the staged positions once hits are
// common. `count` is what StagedHits counted on the mask: exactly that many values are
// written, and nothing at out[count] or beyond. Throws std::logic_error if the mask now
// holds more or fewer hits (it changed since it was staged), or on a CPU without AVX-512.
template <class T, class M>
void compress_values(const M* mask, const T* values, std::int64_t n, T* out, std::int64_t count);

}  // namespace vitals::kernels::nonzero_scan
