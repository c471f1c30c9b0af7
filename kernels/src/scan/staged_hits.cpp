// The CPU nonzero scan. What makes it fast:
// - 64 elements at a time become one 64-bit word of hit bits (vector compares).
// - The first pass stages 16-bit positions, not the int64 result: it needs no count
//   beforehand, so the input is read once, and its stores are a quarter as wide.
// - With AVX-512 VBMI2 (checked at run time), one byte compress packs the positions of
//   a word's hits, widened to 16 bits in one store of 32 (two past 32 hits): a few
//   instructions per word whatever the density.
// - Otherwise (the compiled baseline, AVX2 by default), a word of up to 8 hits stages
//   them in one round of eight from their bit positions (count trailing zeros); a
//   denser word is expanded 16 elements at a time through tables of positions,
//   advancing by the popcount.
// - The second pass is a plain widening copy, 16 to 64 bits plus the block's start,
//   its stores on 32-byte boundaries.
// - Both passes go block by block, the blocks shared among the intra-op threads.
// A dense masked_select compresses the values instead of reading staged positions
// (masked_compress.cpp); the words of hit bits both read are in words.hpp.
// Each word's staging may write up to kStagingSlack positions past its last hit, which
// the next word overwrites; each block's region holds that much past its last element.
#include "staged_hits.hpp"

#include "masked_compress.hpp"
#include "words.hpp"
#include "vitals/cpu_isa.hpp"
#include "vitals/kernels/allocator.hpp"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <exception>
#include <stdexcept>
#include <string>

#include <omp.h>

namespace vitals::kernels::scan {
namespace {

using words::hit_bits;
using words::kWord;
using words::lowest_set_bit;
using words::partial_hit_bits;

[[noreturn]] void fail_no_positions(const char* what) {
    throw std::logic_error(std::string("scan::") + what + ": the scan kept counts only (Staging::counts_when_dense)");
}

#if defined(VITALS_SCAN_AVX2)
using words::kPositions;
// The positions of a byte's set bits plus 8: the upper byte of 16 bits.
constexpr words::LaneTable<8, 1, 8> kUpperPositions;

// For each count p of the lower byte's hits, the byte shuffle that keeps the first p
// bytes of a register and moves its upper 8 bytes down to follow them.
struct JoinHalves {
    alignas(64) std::uint8_t at[9][16];
    constexpr JoinHalves() : at{} {
        for (int p = 0; p <= 8; ++p) {
            for (int i = 0; i < 16; ++i) at[p][i] = static_cast<std::uint8_t>(i < p ? i : i - p < 8 ? 8 + i - p : 0x80);
        }
    }
};
constexpr JoinHalves kJoinHalves;

// Stages a word's hits 16 elements at a time: the positions of each byte's hits from a
// table, the upper byte's joined to the lower's by one shuffle, widened to 16 bits in one
// store of 16 (up to 16 past the word's last hit): half the stores of a store per byte,
// and no data-dependent round count to mispredict.
void stage_dense(std::uint64_t bits, unsigned offset, std::uint16_t* out) {
    __m256i first = _mm256_set1_epi16(static_cast<short>(offset));
    const __m256i sixteen = _mm256_set1_epi16(16);
#pragma GCC unroll 4
    for (int step = 0; step < 4; ++step, bits >>= 16) {
        const auto lower = static_cast<std::uint32_t>(bits & 0xffu);
        const auto upper = static_cast<std::uint32_t>(bits >> 8 & 0xffu);
        // __m64 may alias the tables' bytes.
        const __m128 halves = _mm_loadh_pi(_mm_castsi128_ps(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(kPositions.at[lower]))),
                                           reinterpret_cast<const __m64*>(kUpperPositions.at[upper]));
        const __m128i joined = _mm_shuffle_epi8(_mm_castps_si128(halves),
                                                _mm_load_si128(reinterpret_cast<const __m128i*>(kJoinHalves.at[std::popcount(lower)])));
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), _mm256_add_epi16(first, _mm256_cvtepu8_epi16(joined)));
        out += std::popcount(static_cast<std::uint32_t>(bits & 0xffffu));
        first = _mm256_add_epi16(first, sixteen);
    }
}
#endif

// Stages a word's hits from their bit positions, eight per round with no branch on the
// count until it passes eight (simdjson's flatten_bits): a data-dependent trip count
// mispredicts on most words, and rounds of four mispredict more often. A round past the
// last hit writes positions that later words overwrite. The stores stay scalar: GCC builds this file without its basic-block vectoriser
// (kernels/CMakeLists.txt), which would pack them through vector inserts.
void stage_sparse(std::uint64_t bits, int hits, unsigned offset, std::uint16_t* out) {
    int k = 0;
    do {
#pragma GCC unroll 8
        for (int j = 0; j < 8; ++j) {
            out[k + j] = static_cast<std::uint16_t>(offset + lowest_set_bit(bits));
            bits &= bits - 1;
        }
        k += 8;
    } while (k < hits);
}

void stage_word(std::uint64_t bits, int hits, unsigned offset, std::uint16_t* out) {
#if defined(VITALS_SCAN_AVX2)
    if (hits > kSparseWordHits) {
        stage_dense(bits, offset, out);
        return;
    }
#endif
    stage_sparse(bits, hits, offset, out);
}

// The first pass of the baseline over one block of len <= kBlock elements. Four words at
// a time: their loads, compares and counts are issued before the first is staged, so a
// mispredicted round of one word does not hold up the loads of the next (more words at
// a time gained nothing). Returns the block's hits. Not inlined into the caller's
// per-block closure, which left the loop short of registers.
template <class T>
[[gnu::noinline]] std::int64_t stage_block_baseline(const T* x, std::int64_t len, std::uint16_t* positions) {
    constexpr int kWords = 4;
    std::int64_t staged = 0;
    std::int64_t i = 0;
    for (; i + kWords * kWord <= len; i += kWords * kWord) {
        std::uint64_t bits[kWords];
        int hits[kWords];
#pragma GCC unroll 4
        for (int w = 0; w < kWords; ++w) {
            bits[w] = hit_bits(x + i + w * kWord);
            hits[w] = std::popcount(bits[w]);
        }
#pragma GCC unroll 4
        for (int w = 0; w < kWords; ++w) {
            stage_word(bits[w], hits[w], static_cast<unsigned>(i + w * kWord), positions + staged);
            staged += hits[w];
        }
    }
    for (; i < len; i += kWord) {
        const std::int64_t word_len = std::min(kWord, len - i);
        const std::uint64_t bits = word_len == kWord ? hit_bits(x + i) : partial_hit_bits(x + i, word_len);
        const int hits = std::popcount(bits);
        stage_word(bits, hits, static_cast<unsigned>(i), positions + staged);
        staged += hits;
    }
    return staged;
}

#if defined(VITALS_SCAN_AVX512)
using words::hit_bits_avx512;

// The byte positions 0..63, which a compress by a word's hit bits packs.
alignas(64) constexpr std::uint8_t kBytePositions[64] = {
    0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21,
    22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43,
    44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63};

// Stages a word's hits from their byte positions packed by a compress: 32 per store.
VITALS_AVX512_TARGET inline void stage_packed(__m512i packed, int hits, unsigned offset, std::uint16_t* out) {
    const __m512i first = _mm512_set1_epi16(static_cast<short>(offset));
    _mm512_storeu_si512(out, _mm512_add_epi16(first, _mm512_cvtepu8_epi16(_mm512_castsi512_si256(packed))));
    if (hits > 32) {
        _mm512_storeu_si512(out + 32, _mm512_add_epi16(first, _mm512_cvtepu8_epi16(_mm512_extracti64x4_epi64(packed, 1))));
    }
}

// The first pass on AVX-512 VBMI2 over one block of len <= kBlock elements. Four words
// at a time: their loads and compresses are issued before the stores, whose addresses
// wait on the hit counts.
template <class T>
VITALS_AVX512_TARGET std::int64_t stage_block_avx512(const T* x, std::int64_t len, std::uint16_t* positions) {
    constexpr int kWords = 4;
    const __m512i byte_positions = _mm512_load_si512(kBytePositions);
    std::int64_t staged = 0;
    std::int64_t i = 0;
    for (; i + kWords * kWord <= len; i += kWords * kWord) {
        std::uint64_t bits[kWords];
        __m512i packed[kWords];
#pragma GCC unroll 4
        for (int w = 0; w < kWords; ++w) {
            bits[w] = hit_bits_avx512(x + i + w * kWord);
            packed[w] = _mm512_maskz_compress_epi8(_cvtu64_mask64(bits[w]), byte_positions);
        }
#pragma GCC unroll 4
        for (int w = 0; w < kWords; ++w) {
            const int hits = std::popcount(bits[w]);
            stage_packed(packed[w], hits, static_cast<unsigned>(i + w * kWord), positions + staged);
            staged += hits;
        }
    }
    for (; i < len; i += kWord) {
        const std::int64_t word_len = std::min(kWord, len - i);
        const std::uint64_t bits = word_len == kWord ? hit_bits_avx512(x + i) : partial_hit_bits(x + i, word_len);
        const int hits = std::popcount(bits);
        stage_packed(_mm512_maskz_compress_epi8(_cvtu64_mask64(bits), byte_positions), hits, static_cast<unsigned>(i),
                     positions + staged);
        staged += hits;
    }
    return staged;
}

template <class T>
VITALS_AVX512_TARGET std::int64_t count_block_avx512(const T* x, std::int64_t len) {
    std::int64_t hits = 0;
    std::int64_t i = 0;
    for (; i + kWord <= len; i += kWord) hits += std::popcount(hit_bits_avx512(x + i));
    if (i < len) hits += std::popcount(partial_hit_bits(x + i, len - i));
    return hits;
}
#endif

}  // namespace

template <class T>
StagedHits::StagedHits(const T* x, std::int64_t n, ScanPath path, Staging staging) {
    path = words::resolved(path);
    if (path == ScanPath::avx512_vbmi2 && !avx512_vbmi2_supported()) {
        throw std::logic_error("scan: this CPU does not run AVX-512 VBMI2");
    }
    blocks_ = (n + kBlock - 1) / kBlock;
    // The block counts and the hits before each first (8-byte aligned), then the blocks'
    // regions of positions (the last one as long as its block, with its slack).
    const std::int64_t region_positions =
        blocks_ == 0 ? 0 : (blocks_ - 1) * kBlockRegion + (n - (blocks_ - 1) * kBlock) + kStagingSlack;
    scratch_bytes_ = static_cast<std::size_t>(2 * blocks_) * sizeof(std::int64_t) +
                     static_cast<std::size_t>(region_positions) * sizeof(std::uint16_t);
    scratch_ = detail::allocate(Device::cpu, scratch_bytes_);
    block_hits_ = static_cast<std::int64_t*>(scratch_);
    block_first_ = block_hits_ + blocks_;
    positions_ = reinterpret_cast<std::uint16_t*>(block_first_ + blocks_);
    const bool wide = path == ScanPath::avx512_vbmi2;
    (void)wide;  // a build without the AVX-512 path
    // Stages the block's positions, or (stage false) counts its hits only.
    const auto scan_block = [&](std::int64_t block, bool stage) {
        const std::int64_t start = block * kBlock;
        const std::int64_t len = std::min(kBlock, n - start);
#if defined(VITALS_SCAN_AVX512)
        if (wide) {
            block_hits_[block] = stage ? stage_block_avx512(x + start, len, block_positions(block))
                                       : count_block_avx512(x + start, len);
            return;
        }
#endif
        block_hits_[block] =
            stage ? stage_block_baseline(x + start, len, block_positions(block)) : words::count_hits(x + start, len);
    };
    if (staging == Staging::counts_when_dense && blocks_ > 1) {
        // The first block decides for the rest: staged on the caller's thread, then the
        // others shared out, counted only where it was dense.
        scan_block(0, true);
        has_positions_ = !compress_pays(block_hits_[0], kBlock);
        for_each_block_index(blocks_ - 1, [&](std::int64_t rest) { scan_block(rest + 1, has_positions_); });
    } else {
        for_each_block_index(blocks_, [&](std::int64_t block) { scan_block(block, true); });
    }
    for (std::int64_t block = 0; block < blocks_; ++block) {
        block_first_[block] = count_;
        count_ += block_hits_[block];
    }
}

StagedHits::~StagedHits() { detail::deallocate(Device::cpu, scratch_, scratch_bytes_); }

void StagedHits::write_indices(std::int64_t* out) const {
    if (!has_positions_) fail_no_positions("write_indices");
    for_each_block([&](std::int64_t start, const std::uint16_t* positions, std::int64_t hits, std::int64_t first) {
        std::int64_t* block_out = out + first;
        std::int64_t j = 0;
#if defined(VITALS_SCAN_AVX2)
        // Four positions widened a store, each store on a 32-byte boundary once the first
        // few are written alone: a block's first index lands anywhere, and unaligned
        // stores would split across cache lines.
        for (; j < hits && (reinterpret_cast<std::uintptr_t>(block_out + j) & 31) != 0; ++j) {
            block_out[j] = start + positions[j];
        }
        const __m256i block_start = _mm256_set1_epi64x(start);
        for (; j + 16 <= hits; j += 16) {
#pragma GCC unroll 4
            for (int q = 0; q < 4; ++q) {
                const __m128i four = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(positions + j + 4 * q));
                _mm256_store_si256(reinterpret_cast<__m256i*>(block_out + j + 4 * q),
                                   _mm256_add_epi64(_mm256_cvtepu16_epi64(four), block_start));
            }
        }
#endif
        for (; j < hits; ++j) block_out[j] = start + positions[j];
    });
}

void for_each_block_index(std::int64_t blocks, const std::function<void(std::int64_t)>& fn) {
    // An exception must not leave an OpenMP region: the first is kept, and the other
    // blocks still run (they write only their own), on one thread as on several.
    std::exception_ptr failure;
    const auto run = [&](std::int64_t block) {
        try {
            fn(block);
        } catch (...) {
#pragma omp critical(vitals_scan_failure)
            if (!failure) failure = std::current_exception();
        }
    };
    // One thread (a Timer's default num_threads): no parallel region to open.
    if (blocks < kParallelBlocks || omp_get_max_threads() == 1) {
        for (std::int64_t block = 0; block < blocks; ++block) run(block);
    } else {
#pragma omp parallel for schedule(static)
        for (std::int64_t block = 0; block < blocks; ++block) run(block);
    }
    if (failure) std::rethrow_exception(failure);
}

bool avx512_vbmi2_allowed() { return max_cpu_isa() == MaxCpuIsa::avx512 && avx512_vbmi2_supported(); }

bool avx512_vbmi2_supported() {
#if defined(VITALS_SCAN_AVX512)
    static const bool supported = [] {
        __builtin_cpu_init();
        return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
               __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512vbmi2");
    }();
    return supported;
#else
    return false;
#endif
}

template StagedHits::StagedHits(const float*, std::int64_t, ScanPath, Staging);
template StagedHits::StagedHits(const double*, std::int64_t, ScanPath, Staging);
template StagedHits::StagedHits(const bool*, std::int64_t, ScanPath, Staging);
template StagedHits::StagedHits(const std::int64_t*, std::int64_t, ScanPath, Staging);

}  // namespace vitals::kernels::scan
