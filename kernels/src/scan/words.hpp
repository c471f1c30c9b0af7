// What the first pass (staged_hits.cpp) and masked_select's compress
// (masked_compress.cpp) share: words of hit bits, 64 elements at a time by vector
// compares (AVX2 where the build has it, AVX-512 where the CPU has it, checked at run
// time), the tables that turn a group of hit bits into lanes, and which path `best`
// stands for. Internal to the kernels.
#pragma once

#include "staged_hits.hpp"

#include "elementwise.hpp"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
// Compiled whatever the build's -march, used only where the CPU runs it.
#define VITALS_SCAN_AVX512 1
#define VITALS_AVX512_TARGET __attribute__((target("avx512f,avx512bw,avx512vl,avx512vbmi2,popcnt")))
#endif
// The baseline's vector code, where the build's -march allows it (64-bit only: it uses
// 64-bit lane extracts and tzcnt).
#if defined(__x86_64__) && defined(__AVX2__)
#define VITALS_SCAN_AVX2 1
#endif
#if defined(__x86_64__) && defined(__BMI__)
#define VITALS_SCAN_BMI 1
#endif
#if defined(VITALS_SCAN_AVX2) || defined(VITALS_SCAN_BMI) || defined(VITALS_SCAN_AVX512)
#include <immintrin.h>
#endif
#include <algorithm>
#include <bit>
#include <cstdint>
#include <type_traits>

namespace vitals::kernels::scan::words {

inline constexpr std::int64_t kWord = 64;  // elements per word of hit bits

// Hit bits of len <= kWord elements, one at a time: the last, partial word, and every
// word where the build has no vector code.
template <class T>
inline std::uint64_t partial_hit_bits(const T* x, std::int64_t len) {
    std::uint64_t bits = 0;
    for (std::int64_t j = 0; j < len; ++j) {
        bool hit = false;
        if constexpr (sizeof(T) == 1) {
            // A bool's byte, compared as the vector paths compare it: a byte other than 0
            // and 1 (storage written as raw bytes) is a hit, never a bit shifted elsewhere.
            hit = reinterpret_cast<const unsigned char*>(x)[j] != 0;
        } else {
            hit = elementwise::IsNonZero<T>{}(x[j]);
        }
        bits |= std::uint64_t{hit} << j;
    }
    return bits;
}

#if defined(VITALS_SCAN_AVX2)
// Bit j set where x[j] is non-zero, j in [0, 64).
template <class T>
inline std::uint64_t hit_bits(const T* x) {
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

// For each group of kBits hit bits, the 8 lanes that hold the elements at its set bits,
// packed first; an element spans kLanes lanes, and lanes count from kFirst.
template <int kBits, int kLanes, int kFirst = 0>
struct LaneTable {
    alignas(64) std::uint8_t at[1 << kBits][8];
    constexpr LaneTable() : at{} {
        for (int group = 0; group < (1 << kBits); ++group) {
            int k = 0;
            for (int bit = 0; bit < kBits; ++bit) {
                if ((group >> bit & 1) == 0) continue;
                for (int lane = 0; lane < kLanes; ++lane) {
                    at[group][k++] = static_cast<std::uint8_t>(kFirst + kLanes * bit + lane);
                }
            }
            for (; k < 8; ++k) at[group][k] = 0;
        }
    }
};
// The positions of a byte's set bits, which also permute 8 floats.
inline constexpr LaneTable<8, 1> kPositions;
#else
template <class T>
inline std::uint64_t hit_bits(const T* x) {
    return partial_hit_bits(x, kWord);
}
#endif

// Position of the lowest set bit; 64 for none. One instruction with BMI (tzcnt).
inline unsigned lowest_set_bit(std::uint64_t bits) {
#if defined(VITALS_SCAN_BMI)
    return static_cast<unsigned>(_tzcnt_u64(bits));
#else
    return static_cast<unsigned>(std::countr_zero(bits));
#endif
}

#if defined(VITALS_SCAN_AVX2)
// The non-zero bytes among x[0, len): each register's zero bytes added up in byte lanes
// (a compare and a subtract per 32 bytes), summed every 255 registers before a lane can
// wrap: cheaper than words of hit bits and their popcounts.
inline std::int64_t count_nonzero_bytes(const unsigned char* x, std::int64_t len) {
    constexpr std::int64_t kRegister = 32;
    constexpr std::int64_t kMostRegisters = 255;
    const __m256i zero = _mm256_setzero_si256();
    std::int64_t zeros = 0;
    std::int64_t i = 0;
    while (i + kRegister <= len) {
        __m256i lane_zeros = zero;
        const std::int64_t stop = std::min(len - kRegister + 1, i + kMostRegisters * kRegister);
        for (; i < stop; i += kRegister) {
            const __m256i bytes = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x + i));
            lane_zeros = _mm256_sub_epi8(lane_zeros, _mm256_cmpeq_epi8(bytes, zero));
        }
        const __m256i sums = _mm256_sad_epu8(lane_zeros, zero);
        zeros += _mm256_extract_epi64(sums, 0) + _mm256_extract_epi64(sums, 1) + _mm256_extract_epi64(sums, 2) +
                 _mm256_extract_epi64(sums, 3);
    }
    std::int64_t hits = i - zeros;
    for (; i < len; ++i) hits += x[i] != 0;
    return hits;
}
#endif

// The hits among x[0, len), counted only, on the baseline.
template <class T>
inline std::int64_t count_hits(const T* x, std::int64_t len) {
#if defined(VITALS_SCAN_AVX2)
    // A bool's byte as hit_bits reads it: any byte other than 0 is a hit.
    if constexpr (sizeof(T) == 1) return count_nonzero_bytes(reinterpret_cast<const unsigned char*>(x), len);
#endif
    std::int64_t hits = 0;
    std::int64_t i = 0;
    for (; i + kWord <= len; i += kWord) hits += std::popcount(hit_bits(x + i));
    if (i < len) hits += std::popcount(partial_hit_bits(x + i, len - i));
    return hits;
}

#if defined(VITALS_SCAN_AVX512)
template <class T>
VITALS_AVX512_TARGET inline std::uint64_t hit_bits_avx512(const T* x) {
    if constexpr (sizeof(T) == 1) {
        const __m512i v = _mm512_loadu_si512(x);
        return _mm512_test_epi8_mask(v, v);
    } else if constexpr (std::is_same_v<T, float>) {
        std::uint64_t bits = 0;
        for (int j = 0; j < 4; ++j) {
            bits |= std::uint64_t{_mm512_cmp_ps_mask(_mm512_loadu_ps(x + 16 * j), _mm512_setzero_ps(), _CMP_NEQ_UQ)} << (16 * j);
        }
        return bits;
    } else if constexpr (std::is_same_v<T, double>) {
        std::uint64_t bits = 0;
        for (int j = 0; j < 8; ++j) {
            bits |= std::uint64_t{_mm512_cmp_pd_mask(_mm512_loadu_pd(x + 8 * j), _mm512_setzero_pd(), _CMP_NEQ_UQ)} << (8 * j);
        }
        return bits;
    } else {
        static_assert(sizeof(T) == 8);
        std::uint64_t bits = 0;
        for (int j = 0; j < 8; ++j) {
            const __m512i v = _mm512_loadu_si512(x + 8 * j);
            bits |= std::uint64_t{_mm512_test_epi64_mask(v, v)} << (8 * j);
        }
        return bits;
    }
}
#endif

// The path `best` stands for here; any other path as it is.
inline ScanPath resolved(ScanPath path) {
    if (path != ScanPath::best) return path;
    return avx512_vbmi2_allowed() ? ScanPath::avx512_vbmi2 : ScanPath::baseline;
}

}  // namespace vitals::kernels::scan::words
