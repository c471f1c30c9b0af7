// masked_select's own passes over the values: a dense mask's values compressed a
// register at a time (compress_values), and off AVX-512 the values staged as the mask is
// read (StagedValues). Internal to the scan, and to its tests.
#pragma once

#include <cstddef>
#include <cstdint>

#include "staged_hits.hpp"

namespace vitals::kernels::scan {

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
// StagedValues on the baseline (from 35%). Both thresholds are where the two ways crossed
// when measured on 1M floats, one thread.
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

}  // namespace vitals::kernels::scan
