// masked_select's passes over the values. Off AVX-512, the first pass stages the value
// at each hit as it reads the mask (StagedValues): a word of up to eight hits in a round
// of eight from their bit positions, a denser one as a dense compress packs it. A dense
// mask's second pass packs the values a register at a time straight from the mask
// (compress_values), which beats staging them once hits are common: AVX-512's compress
// instruction where the CPU has it (checked at run time), else on an AVX2 build a lane
// permutation per byte of hit bits from a table of positions.
#include "masked_compress.hpp"

#include "words.hpp"
#include "vitals/kernels/allocator.hpp"

#include <algorithm>
#include <bit>
#include <cstring>
#include <stdexcept>
#include <type_traits>

namespace vitals::kernels::scan {
namespace {

using words::count_hits;
using words::hit_bits;
using words::kWord;
using words::lowest_set_bit;
using words::partial_hit_bits;

[[noreturn]] void fail_mask_changed() {
    throw std::logic_error("masked_select: the mask changed while it was read (another thread writes it?)");
}

#if defined(VITALS_SCAN_AVX2)
using words::kPositions;
// The 32-bit lanes of 4 doubles for each half byte of hit bits.
constexpr words::LaneTable<4, 2> kDoubleLanes;

// Stores the first `hits` 32-bit lanes of `packed` at out: the whole register where
// `room` (lanes out may take) holds it, which the next store overwrites past the hits,
// else only the hit lanes, so never past the room.
inline void store_packed_lanes(__m256i packed, int hits, std::int64_t room, void* out) {
    if (room >= 8) {
        _mm256_storeu_si256(static_cast<__m256i*>(out), packed);
    } else {
        const __m256i lanes = _mm256_cmpgt_epi32(_mm256_set1_epi32(hits), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
        _mm256_maskstore_epi32(static_cast<int*>(out), lanes, packed);
    }
}

// The values at the hits of a full word, 8 floats (a byte of hit bits) or 4 doubles (half
// a byte) a register, packed by a lane permutation from a table of positions. `room`:
// the entries out may take, at least the word's hits. With kWholeRegisters, the room
// holds the word's hits plus kValueSlack, so that every register is stored whole with
// no check.
template <bool kWholeRegisters, class T>
void compress_word_avx2(std::uint64_t bits, const T* values, T* out, std::int64_t room) {
    if constexpr (std::is_same_v<T, float>) {
        for (int j = 0; j < kWord; j += 8, bits >>= 8) {
            const auto byte = static_cast<std::uint32_t>(bits & 0xffu);
            const __m256i lanes = _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(kPositions.at[byte])));
            const __m256i packed = _mm256_permutevar8x32_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(values + j)), lanes);
            const int hits = std::popcount(byte);
            if constexpr (kWholeRegisters) {
                _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), packed);
            } else {
                store_packed_lanes(packed, hits, room, out);
            }
            out += hits;
            room -= hits;
        }
    } else {
        static_assert(std::is_same_v<T, double>);
        for (int j = 0; j < kWord; j += 4, bits >>= 4) {
            const auto nibble = static_cast<std::uint32_t>(bits & 0xfu);
            const __m256i lanes = _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(kDoubleLanes.at[nibble])));
            const __m256i packed = _mm256_permutevar8x32_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(values + j)), lanes);
            const int hits = std::popcount(nibble);
            if constexpr (kWholeRegisters) {
                _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), packed);
            } else {
                store_packed_lanes(packed, 2 * hits, 2 * room, out);
            }
            out += hits;
            room -= hits;
        }
    }
}

struct Compressed {
    std::int64_t words_end;  // the element after the last word compressed
    std::int64_t written;    // values written
};

// The full words from element i on, while out's room past `written` holds a word's hits
// plus kValueSlack: every register stored whole, with no check. Stops at the first word
// it has no such room for (the last few words, or a mask that gained hits), which the
// caller then compresses checked: as fast as a loop with no checks at all. Kept out of
// line: inlined beside the checked path, the loop ran short of registers.
template <class T, class M>
[[gnu::noinline]] Compressed compress_whole_words_avx2(const M* mask, const T* values, std::int64_t n, T* out,
                                                       std::int64_t count, std::int64_t i) {
    std::int64_t written = 0;
    for (; i + kWord <= n; i += kWord) {
        const std::uint64_t bits = hit_bits(mask + i);
        const int hits = std::popcount(bits);
        if (count - written < hits + kValueSlack) break;
        compress_word_avx2<true>(bits, values + i, out + written, count - written);
        written += hits;
    }
    return {i, written};
}

template <class T, class M>
void compress_values_avx2(const M* mask, const T* values, std::int64_t n, T* out, std::int64_t count) {
    const auto [words_end, whole_written] = compress_whole_words_avx2(mask, values, n, out, count, 0);
    std::int64_t written = whole_written;
    for (std::int64_t i = words_end; i < n; i += kWord) {
        const std::int64_t len = std::min(kWord, n - i);
        std::uint64_t bits = len == kWord ? hit_bits(mask + i) : partial_hit_bits(mask + i, len);
        const int hits = std::popcount(bits);
        if (written + hits > count) fail_mask_changed();
        if (len == kWord) {
            compress_word_avx2<false>(bits, values + i, out + written, count - written);
        } else {
            // The last, partial word one value at a time: no load past the input.
            for (T* at = out + written; bits != 0; bits &= bits - 1) *at++ = values[i + lowest_set_bit(bits)];
        }
        written += hits;
    }
    if (written != count) fail_mask_changed();
}
#endif

#if defined(VITALS_SCAN_AVX512)
using words::hit_bits_avx512;

// The values at the hits of a word of `len` elements, a register at a time; the store
// writes the packed ones only, so never past `out`. A partial word (kFull false) loads
// its hit lanes only, so never past the input.
template <bool kFull, class T>
VITALS_AVX512_TARGET inline void compress_word(std::uint64_t bits, const T* values, std::int64_t len, T* out) {
    if constexpr (std::is_same_v<T, float>) {
        for (int j = 0; j < len; j += 16, bits >>= 16) {
            const auto lanes = static_cast<__mmask16>(bits);
            const int hits = std::popcount(static_cast<std::uint32_t>(lanes));
            const __m512 loaded = kFull ? _mm512_loadu_ps(values + j) : _mm512_maskz_loadu_ps(lanes, values + j);
            _mm512_mask_storeu_ps(out, static_cast<__mmask16>((1u << hits) - 1), _mm512_maskz_compress_ps(lanes, loaded));
            out += hits;
        }
    } else {
        static_assert(std::is_same_v<T, double>);
        for (int j = 0; j < len; j += 8, bits >>= 8) {
            const auto lanes = static_cast<__mmask8>(bits);
            const int hits = std::popcount(static_cast<std::uint32_t>(lanes));
            const __m512d loaded = kFull ? _mm512_loadu_pd(values + j) : _mm512_maskz_loadu_pd(lanes, values + j);
            _mm512_mask_storeu_pd(out, static_cast<__mmask8>((1u << hits) - 1), _mm512_maskz_compress_pd(lanes, loaded));
            out += hits;
        }
    }
}

template <class T, class M>
VITALS_AVX512_TARGET void compress_values_avx512(const M* mask, const T* values, std::int64_t n, T* out, std::int64_t count) {
    std::int64_t written = 0;
    for (std::int64_t i = 0; i < n; i += kWord) {
        const std::int64_t len = std::min(kWord, n - i);
        const bool full = len == kWord;
        const std::uint64_t bits = full ? hit_bits_avx512(mask + i) : partial_hit_bits(mask + i, len);
        const int hits = std::popcount(bits);
        if (written + hits > count) fail_mask_changed();
        if (full) {
            compress_word<true>(bits, values + i, kWord, out + written);
        } else {
            compress_word<false>(bits, values + i, len, out + written);
        }
        written += hits;
    }
    if (written != count) fail_mask_changed();
}
#endif

// Stages the values at a word's hits from their bit positions, eight per round with no
// branch on the count until it passes eight, as the scan stages positions
// (staged_hits.cpp). A round past the last hit writes entries the next word
// overwrites, and loads the element after the word (the position of no bit is 64),
// which must exist: the caller stages the array's last word otherwise.
template <class T>
inline void stage_word_values_sparse(std::uint64_t bits, int hits, const T* values, T* out) {
    int k = 0;
    do {
#pragma GCC unroll 8
        for (int j = 0; j < 8; ++j) {
            out[k + j] = values[lowest_set_bit(bits)];
            bits &= bits - 1;
        }
        k += 8;
    } while (k < hits);
}

// Up to kValueSlack entries past the word's last hit written, as the sparse rounds do.
template <class T>
inline void stage_word_values(std::uint64_t bits, int hits, const T* values, T* out) {
#if defined(VITALS_SCAN_AVX2)
    if (hits > kSparseWordHits) {
        compress_word_avx2<true>(bits, values, out, hits + kValueSlack);
        return;
    }
#endif
    stage_word_values_sparse(bits, hits, values, out);
}

// Stages the values at the hits of one block of len <= kBlock elements into out, and
// returns its hits. Four words at a time, their loads and compares issued before the
// first is staged, as the scan does; the block's last four words (or fewer) one at a
// time, hit by hit, so that no round reads past the block, whose end may be the array's.
template <class T, class M>
[[gnu::noinline]] std::int64_t stage_block_values(const M* mask, const T* values, std::int64_t len, T* out) {
    constexpr int kWords = 4;
    std::int64_t staged = 0;
    std::int64_t i = 0;
    for (; i + kWords * kWord < len; i += kWords * kWord) {
        std::uint64_t bits[kWords];
        int hits[kWords];
#pragma GCC unroll 4
        for (int w = 0; w < kWords; ++w) {
            bits[w] = hit_bits(mask + i + w * kWord);
            hits[w] = std::popcount(bits[w]);
        }
#pragma GCC unroll 4
        for (int w = 0; w < kWords; ++w) {
            stage_word_values(bits[w], hits[w], values + i + w * kWord, out + staged);
            staged += hits[w];
        }
    }
    for (; i < len; i += kWord) {
        const std::int64_t word_len = std::min(kWord, len - i);
        std::uint64_t bits = word_len == kWord ? hit_bits(mask + i) : partial_hit_bits(mask + i, word_len);
        for (; bits != 0; bits &= bits - 1) out[staged++] = values[i + lowest_set_bit(bits)];
    }
    return staged;
}

}  // namespace

template <class T, class M>
StagedValues<T, M>::StagedValues(const M* mask, const T* values, std::int64_t n)
    : mask_(mask), values_(values), n_(n) {
    blocks_ = (n + kBlock - 1) / kBlock;
    // The block counts and the hits before each first, then the blocks' regions of
    // values (the last one as long as its block, with its slack).
    const std::int64_t region_values =
        blocks_ == 0 ? 0 : (blocks_ - 1) * kBlockRegion + (n - (blocks_ - 1) * kBlock) + kValueSlack;
    scratch_bytes_ = static_cast<std::size_t>(2 * blocks_) * sizeof(std::int64_t) +
                     static_cast<std::size_t>(region_values) * sizeof(T);
    scratch_ = detail::allocate(Device::cpu, scratch_bytes_);
    block_hits_ = static_cast<std::int64_t*>(scratch_);
    block_first_ = block_hits_ + blocks_;
    staged_ = reinterpret_cast<T*>(block_first_ + blocks_);
    // Stages the block's values, or (stage false) counts its hits only.
    const auto scan_block = [&](std::int64_t block, bool stage) {
        const std::int64_t start = block * kBlock;
        const std::int64_t len = std::min(kBlock, n - start);
        block_hits_[block] =
            stage ? stage_block_values(mask + start, values + start, len, block_values(block)) : count_hits(mask + start, len);
    };
    if (blocks_ > 1) {
        // The first block decides for the rest, as in StagedHits.
        scan_block(0, true);
        dense_ = compress_pays(block_hits_[0], kBlock, ScanPath::baseline);
        for_each_block_index(blocks_ - 1, [&](std::int64_t rest) { scan_block(rest + 1, !dense_); });
    } else if (blocks_ == 1) {
        scan_block(0, true);
    }
    for (std::int64_t block = 0; block < blocks_; ++block) {
        block_first_[block] = count_;
        count_ += block_hits_[block];
    }
}

template <class T, class M>
StagedValues<T, M>::~StagedValues() {
    detail::deallocate(Device::cpu, scratch_, scratch_bytes_);
}

template <class T, class M>
void StagedValues<T, M>::write(T* out) const {
    for_each_block_index(blocks_, [&](std::int64_t block) {
        const std::int64_t start = block * kBlock;
        const std::int64_t hits = block_hits_[block];
        T* block_out = out + block_first_[block];
        if (dense_) {
            compress_values(mask_ + start, values_ + start, std::min(kBlock, n_ - start), block_out, hits, ScanPath::baseline);
        } else if (hits > 0) {
            std::memcpy(block_out, block_values(block), static_cast<std::size_t>(hits) * sizeof(T));
        }
    });
}

bool compress_supported(ScanPath path) {
    path = words::resolved(path);
    if (path == ScanPath::avx512_vbmi2) return avx512_vbmi2_supported();
#if defined(VITALS_SCAN_AVX2)
    return true;
#else
    return false;
#endif
}

bool compress_pays(std::int64_t hits, std::int64_t n, ScanPath path) {
    path = words::resolved(path);
    const std::int64_t from_percent = path == ScanPath::avx512_vbmi2 ? 25 : 35;
    return compress_supported(path) && hits * 100 >= n * from_percent;
}

template <class T, class M>
void compress_values(const M* mask, const T* values, std::int64_t n, T* out, std::int64_t count, ScanPath path) {
    path = words::resolved(path);
    if (!compress_supported(path)) {
        throw std::logic_error(path == ScanPath::avx512_vbmi2
                                   ? "scan::compress_values: this CPU does not run AVX-512"
                                   : "scan::compress_values: this build has no AVX2 (build with -march=x86-64-v3)");
    }
#if defined(VITALS_SCAN_AVX512)
    if (path == ScanPath::avx512_vbmi2) return compress_values_avx512(mask, values, n, out, count);
#endif
#if defined(VITALS_SCAN_AVX2)
    if (path == ScanPath::baseline) return compress_values_avx2(mask, values, n, out, count);
#endif
    (void)mask, (void)values, (void)n, (void)out, (void)count;
}

#define VITALS_COMPRESS_VALUES(T, M)                                                                     \
    template void compress_values<T, M>(const M*, const T*, std::int64_t, T*, std::int64_t, ScanPath); \
    template class StagedValues<T, M>;
VITALS_COMPRESS_VALUES(float, float)
VITALS_COMPRESS_VALUES(float, double)
VITALS_COMPRESS_VALUES(float, bool)
VITALS_COMPRESS_VALUES(float, std::int64_t)
VITALS_COMPRESS_VALUES(double, float)
VITALS_COMPRESS_VALUES(double, double)
VITALS_COMPRESS_VALUES(double, bool)
VITALS_COMPRESS_VALUES(double, std::int64_t)
#undef VITALS_COMPRESS_VALUES

}  // namespace vitals::kernels::scan
