// masked_select's second pass for a dense mask: the values at the mask's hits, packed a
// register at a time straight from the mask (nonzero_scan.hpp, compress_values), which
// beats a gather at staged positions once hits are common. AVX-512's compress
// instruction where the CPU has it (checked at run time), else on an AVX2 build a lane
// permutation per byte of hit bits from a table of positions.
#include "nonzero_scan.hpp"

#include "scan_words.hpp"

#include <algorithm>
#include <bit>
#include <stdexcept>
#include <type_traits>

namespace vitals::kernels::nonzero_scan {
namespace {

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
// the entries out may take, at least the word's hits.
template <class T>
void compress_word_avx2(std::uint64_t bits, const T* values, T* out, std::int64_t room) {
    if constexpr (std::is_same_v<T, float>) {
        for (int j = 0; j < kWord; j += 8, bits >>= 8) {
            const auto byte = static_cast<std::uint32_t>(bits & 0xffu);
            const __m256i lanes = _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(kPositions.at[byte])));
            const __m256i packed = _mm256_permutevar8x32_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(values + j)), lanes);
            const int hits = std::popcount(byte);
            store_packed_lanes(packed, hits, room, out);
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
            store_packed_lanes(packed, 2 * hits, 2 * room, out);
            out += hits;
            room -= hits;
        }
    }
}

template <class T, class M>
void compress_values_avx2(const M* mask, const T* values, std::int64_t n, T* out, std::int64_t count) {
    std::int64_t written = 0;
    for (std::int64_t i = 0; i < n; i += kWord) {
        const std::int64_t len = std::min(kWord, n - i);
        std::uint64_t bits = len == kWord ? hit_bits(mask + i) : partial_hit_bits(mask + i, len);
        const int hits = std::popcount(bits);
        if (written + hits > count) fail_mask_changed();
        if (len == kWord) {
            compress_word_avx2(bits, values + i, out + written, count - written);
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

}  // namespace

bool compress_supported(ScanPath path) {
    path = words::resolved(path);
    if (path == ScanPath::avx512_vbmi2) return avx512_vbmi2_supported();
#if defined(VITALS_SCAN_AVX2)
    return true;
#else
    return false;
#endif
}

bool compress_pays(std::int64_t hits, std::int64_t n) {
    const std::int64_t from_percent = avx512_vbmi2_allowed() ? 25 : 35;
    return compress_supported() && hits * 100 >= n * from_percent;
}

template <class T, class M>
void compress_values(const M* mask, const T* values, std::int64_t n, T* out, std::int64_t count, ScanPath path) {
    path = words::resolved(path);
    if (!compress_supported(path)) {
        throw std::logic_error(path == ScanPath::avx512_vbmi2
                                   ? "nonzero_scan::compress_values: this CPU does not run AVX-512"
                                   : "nonzero_scan::compress_values: this build has no AVX2 (build with -march=x86-64-v3)");
    }
#if defined(VITALS_SCAN_AVX512)
    if (path == ScanPath::avx512_vbmi2) return compress_values_avx512(mask, values, n, out, count);
#endif
#if defined(VITALS_SCAN_AVX2)
    if (path == ScanPath::baseline) return compress_values_avx2(mask, values, n, out, count);
#endif
    (void)mask, (void)values, (void)n, (void)out, (void)count;
}

#define VITALS_COMPRESS_VALUES(T, M) \
    template void compress_values<T, M>(const M*, const T*, std::int64_t, T*, std::int64_t, ScanPath);
VITALS_COMPRESS_VALUES(float, float)
VITALS_COMPRESS_VALUES(float, double)
VITALS_COMPRESS_VALUES(float, bool)
VITALS_COMPRESS_VALUES(float, std::int64_t)
VITALS_COMPRESS_VALUES(double, float)
VITALS_COMPRESS_VALUES(double, double)
VITALS_COMPRESS_VALUES(double, bool)
VITALS_COMPRESS_VALUES(double, std::int64_t)
#undef VITALS_COMPRESS_VALUES

}  // namespace vitals::kernels::nonzero_scan
