// The CPU nonzero scan. What makes it fast (figures in benches/bench_kernels.cpp):
// - 64 elements at a time become one 64-bit word of hit bits (vector compares).
// - With AVX-512 VBMI2 (checked at run time), one byte compress packs the positions of
//   a word's hits, and each 8 of them widen to int64 in one store: a few instructions
//   per word whatever the density.
// - Otherwise (the compiled baseline, AVX2 by default), a sparse word writes each hit
//   from its bit position (count trailing zeros), so the cost follows the hits; a dense
//   word expands each byte of hit bits through a table of positions and stores all 8
//   lanes, advancing the output by the byte's popcount.
// Every path writes up to kOverrun entries past the word's last hit, which the next word
// overwrites; so the words that end near `capacity` go through a small local buffer.
#include "nonzero_scan.hpp"

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
#include <stdexcept>
#include <type_traits>

namespace vitals::kernels::nonzero_scan {
namespace {

constexpr std::int64_t kWord = 64;  // elements per word of hit bits
// The most entries any path writes past a word's last hit: the dense baseline stores 8
// lanes from the last byte's first hit, AVX-512 rounds up to 8, a sparse word to 4.
constexpr std::int64_t kOverrun = 8;

// Hit bits of len <= kWord elements, one at a time: the last, partial word, and every
// word where the build has no vector code.
template <class T>
std::uint64_t partial_hit_bits(const T* x, std::int64_t len) {
    std::uint64_t bits = 0;
    for (std::int64_t j = 0; j < len; ++j) bits |= std::uint64_t{elementwise::IsNonZero<T>{}(x[j])} << j;
    return bits;
}

#if defined(VITALS_SCAN_AVX2)
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
    constexpr PositionTable() : at{} {
        for (int byte = 0; byte < 256; ++byte) {
            int k = 0;
            for (int bit = 0; bit < 8; ++bit) {
                if (byte >> bit & 1) at[byte][k++] = bit;
            }
            for (; k < 8; ++k) at[byte][k] = 0;
        }
    }
};
constexpr PositionTable kPositions;

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
#if defined(VITALS_SCAN_BMI)
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

// Writes the `hits` hits of a word, and at most kOverrun entries more.
void write_word(std::uint64_t bits, int hits, std::int64_t base, std::int64_t* out) {
#if defined(VITALS_SCAN_AVX2)
    if (hits > kSparseWordHits) {
        write_dense(bits, base, out);
        return;
    }
#endif
    write_sparse(bits, hits, base, out);
}

// Writes a word's `hits` hits at out, and at most kOverrun entries more.
using WordWriter = void (*)(std::uint64_t bits, int hits, std::int64_t base, std::int64_t* out);

// A word whose overrun would pass the end of the output: written to a local buffer, then
// its hits only are copied. Out of line, as it runs for the last few words at most.
[[gnu::noinline]] void write_word_near_end(WordWriter writer, std::uint64_t bits, int hits, std::int64_t base,
                                           std::int64_t* out, std::int64_t room) {
    if (hits > room) throw std::logic_error("nonzero_scan::write_indices: more hits than the output holds");
    std::int64_t buffer[kWord + kOverrun];
    writer(bits, hits, base, buffer);
    std::copy_n(buffer, hits, out);
}

// The word loop of both paths: each 64 elements' hit bits, then the word written in
// place or, near the end of the output, through a buffer. Always inlined, so that each
// path's copy is compiled with that path's instruction set.
template <class T, std::uint64_t (*hit_bits_of)(const T*), WordWriter writer>
[[gnu::always_inline]] inline std::int64_t scan_words(const T* x, std::int64_t n, std::int64_t* out, std::int64_t capacity) {
    std::int64_t written = 0;
    for (std::int64_t i = 0; i < n; i += kWord) {
        const std::int64_t len = std::min(kWord, n - i);
        const std::uint64_t bits = len == kWord ? hit_bits_of(x + i) : partial_hit_bits(x + i, len);
        const int hits = std::popcount(bits);
        if (capacity - written >= hits + kOverrun) {
            writer(bits, hits, i, out + written);
        } else if (hits != 0) {
            write_word_near_end(writer, bits, hits, i, out + written, capacity - written);
        }
        written += hits;
    }
    return written;
}

#if defined(VITALS_SCAN_AVX512)
template <class T>
VITALS_AVX512_TARGET std::uint64_t hit_bits_avx512(const T* x) {
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

// The byte positions 0..63, which a compress by a word's hit bits packs.
alignas(64) constexpr std::uint8_t kBytePositions[64] = {
    0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21,
    22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43,
    44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63};

// Writes a word's hits 8 at a time (so at most kOverrun - 1 entries more).
VITALS_AVX512_TARGET void write_word_avx512(std::uint64_t bits, int hits, std::int64_t base, std::int64_t* out) {
    // The compress stays in a register (to memory it is microcoded on AMD Zen 4); the
    // packed positions go through L1 to be widened 8 at a time.
    alignas(64) std::uint8_t packed[64];
    _mm512_store_si512(packed, _mm512_maskz_compress_epi8(_cvtu64_mask64(bits), _mm512_load_si512(kBytePositions)));
    const __m512i first = _mm512_set1_epi64(base);
    for (int k = 0; k < hits; k += 8) {
        const __m128i eight = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(packed + k));
        _mm512_storeu_si512(out + k, _mm512_add_epi64(first, _mm512_cvtepu8_epi64(eight)));
    }
}

template <class T>
VITALS_AVX512_TARGET std::int64_t write_indices_avx512(const T* x, std::int64_t n, std::int64_t* out, std::int64_t capacity) {
    return scan_words<T, hit_bits_avx512<T>, write_word_avx512>(x, n, out, capacity);
}
#endif

}  // namespace

template <class T>
std::int64_t count(const T* x, std::int64_t n) {
    std::int64_t i = 0;
    std::int64_t hits = 0;
#if defined(VITALS_SCAN_AVX2)
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
    for (; i < n; ++i) hits += elementwise::IsNonZero<T>{}(x[i]) ? 1 : 0;
    return hits;
}

template <class T>
std::int64_t write_indices(const T* x, std::int64_t n, std::int64_t* out, std::int64_t capacity, ScanPath path) {
    if (path == ScanPath::best) path = avx512_vbmi2_supported() ? ScanPath::avx512_vbmi2 : ScanPath::baseline;
    if (path == ScanPath::avx512_vbmi2) {
#if defined(VITALS_SCAN_AVX512)
        if (avx512_vbmi2_supported()) return write_indices_avx512(x, n, out, capacity);
#endif
        throw std::logic_error("nonzero_scan::write_indices: this CPU does not run AVX-512 VBMI2");
    }
    return scan_words<T, hit_bits<T>, write_word>(x, n, out, capacity);
}

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

#define VITALS_NONZERO_SCAN(T)                                \
    template std::int64_t count<T>(const T*, std::int64_t); \
    template std::int64_t write_indices<T>(const T*, std::int64_t, std::int64_t*, std::int64_t, ScanPath);
VITALS_NONZERO_SCAN(float)
VITALS_NONZERO_SCAN(double)
VITALS_NONZERO_SCAN(bool)
VITALS_NONZERO_SCAN(std::int64_t)
#undef VITALS_NONZERO_SCAN

}  // namespace vitals::kernels::nonzero_scan
