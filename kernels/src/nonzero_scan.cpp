// The CPU nonzero scan. What makes it fast (figures in benches/bench_kernels.cpp):
// - 64 elements at a time become one 64-bit word of hit bits (vector compares).
// - A sparse word writes each hit from its bit position (count trailing zeros), so the
//   cost follows the hits, not the elements.
// - A dense word expands each byte of hit bits through a table of positions and stores
//   all 8 lanes, advancing the output by the byte's popcount: no branch per hit.
// Both write a few entries past the word's last hit, which the next word overwrites; so
// the words that end near `capacity` go through a small local buffer instead.
#include "nonzero_scan.hpp"

#if defined(__AVX2__) || defined(__BMI__)
#include <immintrin.h>
#endif
#include <algorithm>
#include <bit>
#include <stdexcept>
#include <type_traits>

namespace vitals::kernels::nonzero_scan {
namespace {

constexpr std::int64_t kWord = 64;  // elements per word of hit bits; the most a word writes

template <class T>
bool is_hit(T v) {
    return v != T(0);
}

// Hit bits of the last, partial word (len < kWord elements).
template <class T>
std::uint64_t partial_hit_bits(const T* x, std::int64_t len) {
    std::uint64_t bits = 0;
    for (std::int64_t j = 0; j < len; ++j) bits |= std::uint64_t{is_hit(x[j])} << j;
    return bits;
}

#if defined(__AVX2__)
// Bit j set where x[j] is non-zero, j in [0, 64).
template <class T>
std::uint64_t hit_bits(const T* x) {
    const __m256i zero = _mm256_setzero_si256();
    if constexpr (sizeof(T) == 1) {
        const auto* bytes = reinterpret_cast<const __m256i*>(x);
        const auto low = static_cast<std::uint32_t>(_mm256_movemask_epi8(_mm256_cmpeq_epi8(_mm256_loadu_si256(bytes), zero)));
        const auto high = static_cast<std::uint32_t>(_mm256_movemask_epi8(_mm256_cmpeq_epi8(_mm256_loadu_si256(bytes + 1), zero)));
        return ~(std::uint64_t{high} << 32 | low);
    } else if constexpr (std::is_same_v<T, float>) {
        std::uint64_t bits = 0;
        for (int j = 0; j < 8; ++j) {
            const __m256 v = _mm256_loadu_ps(x + 8 * j);
            bits |= std::uint64_t(static_cast<std::uint32_t>(_mm256_movemask_ps(_mm256_cmp_ps(v, _mm256_setzero_ps(), _CMP_NEQ_UQ)))) << (8 * j);
        }
        return bits;
    } else if constexpr (std::is_same_v<T, double>) {
        std::uint64_t bits = 0;
        for (int j = 0; j < 16; ++j) {
            const __m256d v = _mm256_loadu_pd(x + 4 * j);
            bits |= std::uint64_t(static_cast<std::uint32_t>(_mm256_movemask_pd(_mm256_cmp_pd(v, _mm256_setzero_pd(), _CMP_NEQ_UQ)))) << (4 * j);
        }
        return bits;
    } else {
        static_assert(sizeof(T) == 8);
        std::uint64_t zeros = 0;
        for (int j = 0; j < 16; ++j) {
            const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x + 4 * j));
            zeros |= std::uint64_t(static_cast<std::uint32_t>(_mm256_movemask_pd(_mm256_castsi256_pd(_mm256_cmpeq_epi64(v, zero))))) << (4 * j);
        }
        return ~zeros;
    }
}

// For each byte of hit bits, the positions of its set bits, packed first.
struct PositionTable {
    alignas(64) std::int32_t at[256][8];
    PositionTable() {
        for (int byte = 0; byte < 256; ++byte) {
            int k = 0;
            for (int bit = 0; bit < 8; ++bit) {
                if (byte >> bit & 1) at[byte][k++] = bit;
            }
            for (; k < 8; ++k) at[byte][k] = 0;
        }
    }
};
const PositionTable kPositions;

// Writes the hits of a word whose elements start at `base`: 8 lanes per byte of bits.
void write_dense(std::uint64_t bits, std::int64_t base, std::int64_t* out) {
    __m256i first = _mm256_set1_epi64x(base);
    const __m256i eight = _mm256_set1_epi64x(8);
    for (int b = 0; b < 8; ++b, bits >>= 8) {
        const auto byte = static_cast<std::uint32_t>(bits & 0xffu);
        const auto* positions = reinterpret_cast<const __m128i*>(kPositions.at[byte]);
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), _mm256_add_epi64(first, _mm256_cvtepu32_epi64(_mm_load_si128(positions))));
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + 4), _mm256_add_epi64(first, _mm256_cvtepu32_epi64(_mm_load_si128(positions + 1))));
        out += std::popcount(byte);
        first = _mm256_add_epi64(first, eight);
    }
}
#else
template <class T>
std::uint64_t hit_bits(const T* x) {
    return partial_hit_bits(x, kWord);
}
#endif

// Position of the lowest set bit; 64 for none. One instruction with BMI (tzcnt).
inline std::int64_t lowest_set_bit(std::uint64_t bits) {
#if defined(__BMI__)
    return static_cast<std::int64_t>(_tzcnt_u64(bits));
#else
    return std::countr_zero(bits);
#endif
}

// Writes the hits of a word four per round: the lowest set bit's position, then clear it.
// A round past the last hit writes base + 64, which later writes replace.
void write_sparse(std::uint64_t bits, int hits, std::int64_t base, std::int64_t* out) {
    int k = 0;
    do {
        for (int j = 0; j < 4; ++j) {
            out[k + j] = base + lowest_set_bit(bits);
            bits &= bits - 1;
        }
        k += 4;
    } while (k < hits);
}

// Writes the `hits` hits of a word; may write up to kWord entries.
void write_word(std::uint64_t bits, int hits, std::int64_t base, std::int64_t* out) {
#if defined(__AVX2__)
    if (hits > kSparseWordHits) {
        write_dense(bits, base, out);
        return;
    }
#endif
    write_sparse(bits, hits, base, out);
}

}  // namespace

template <class T>
std::int64_t count(const T* x, std::int64_t n) {
    std::int64_t i = 0;
    std::int64_t hits = 0;
#if defined(__AVX2__)
    if constexpr (sizeof(T) == 1) {
        // Zero bytes counted in byte lanes (a compare gives -1, subtracted), summed before
        // a lane can pass 255: a load, a compare and a subtract per 32 elements.
        const auto* bytes = reinterpret_cast<const std::uint8_t*>(x);
        const __m256i zero = _mm256_setzero_si256();
        std::int64_t zeros = 0;
        while (i + 32 <= n) {
            const std::int64_t stop = std::min(n - 31, i + 255 * 32);
            __m256i lanes = zero;
            for (; i < stop; i += 32) {
                lanes = _mm256_sub_epi8(lanes, _mm256_cmpeq_epi8(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(bytes + i)), zero));
            }
            const __m256i sums = _mm256_sad_epu8(lanes, zero);
            zeros += _mm256_extract_epi64(sums, 0) + _mm256_extract_epi64(sums, 1) + _mm256_extract_epi64(sums, 2) +
                     _mm256_extract_epi64(sums, 3);
        }
        hits = i - zeros;
    }
#endif
    for (; i + kWord <= n; i += kWord) hits += std::popcount(hit_bits(x + i));
    for (; i < n; ++i) hits += is_hit(x[i]) ? 1 : 0;
    return hits;
}

template <class T>
std::int64_t write_indices(const T* x, std::int64_t n, std::int64_t* out, std::int64_t capacity) {
    std::int64_t written = 0;
    std::int64_t near_end[kWord];
    for (std::int64_t i = 0; i < n; i += kWord) {
        const std::int64_t len = std::min(kWord, n - i);
        const std::uint64_t bits = len == kWord ? hit_bits(x + i) : partial_hit_bits(x + i, len);
        const int hits = std::popcount(bits);
        if (capacity - written >= kWord) {
            write_word(bits, hits, i, out + written);
        } else {
            if (hits > capacity - written) {
                throw std::logic_error("nonzero_scan::write_indices: more hits than the output holds");
            }
            write_word(bits, hits, i, near_end);
            std::copy_n(near_end, hits, out + written);
        }
        written += hits;
    }
    return written;
}

#define VITALS_NONZERO_SCAN(T)                                \
    template std::int64_t count<T>(const T*, std::int64_t); \
    template std::int64_t write_indices<T>(const T*, std::int64_t, std::int64_t*, std::int64_t);
VITALS_NONZERO_SCAN(float)
VITALS_NONZERO_SCAN(double)
VITALS_NONZERO_SCAN(bool)
VITALS_NONZERO_SCAN(std::int64_t)
#undef VITALS_NONZERO_SCAN

}  // namespace vitals::kernels::nonzero_scan
