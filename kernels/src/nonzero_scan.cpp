// The CPU nonzero scan. What makes it fast (figures in benches/bench_kernels.cpp):
// - 64 elements at a time become one 64-bit word of hit bits (vector compares).
// - The first pass stages 16-bit positions, not the int64 result: it needs no count
//   beforehand, so the input is read once, and its stores are a quarter as wide.
// - With AVX-512 VBMI2 (checked at run time), one byte compress packs the positions of
//   a word's hits, widened to 16 bits in one store of 32 (two past 32 hits): a few
//   instructions per word whatever the density.
// - Otherwise (the compiled baseline, AVX2 by default), a sparse word stages its hits
//   eight at a time from their bit positions (count trailing zeros); a dense
//   word expands each byte of hit bits through a table of positions, 8 lanes at a time,
//   advancing by the byte's popcount.
// - The second pass is a plain widening copy, 16 to 64 bits plus the block's start.
// - A dense masked_select compresses the values instead of gathering them: AVX-512's
//   compress, or on AVX2 a lane permutation per byte of hit bits from the same table.
// - Both passes go block by block, the blocks shared among the intra-op threads.
// Each word's staging may write up to kStagingSlack positions past its last hit, which
// the next word overwrites; each block's region holds that much past its last element.
#include "nonzero_scan.hpp"

#include "elementwise.hpp"
#include "vitals/cpu_isa.hpp"
#include "vitals/kernels/allocator.hpp"

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
#include <exception>
#include <stdexcept>
#include <string>
#include <type_traits>

#include <omp.h>

namespace vitals::kernels::nonzero_scan {
namespace {

constexpr std::int64_t kWord = 64;  // elements per word of hit bits

[[noreturn]] void fail_mask_changed() {
    throw std::logic_error("masked_select: the mask changed while it was read (another thread writes it?)");
}

[[noreturn]] void fail_no_positions(const char* what) {
    throw std::logic_error(std::string("nonzero_scan::") + what + ": the scan kept counts only (Staging::counts_when_dense)");
}

// Hit bits of len <= kWord elements, one at a time: the last, partial word, and every
// word where the build has no vector code.
template <class T>
std::uint64_t partial_hit_bits(const T* x, std::int64_t len) {
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

// For each group of kBits hit bits, the 8 lanes that hold the elements at its set bits,
// packed first; an element spans kLanes lanes. kPositions: the positions of a byte's
// set bits, which also permute 8 floats; kDoubleLanes: the 32-bit lanes of 4 doubles.
template <int kBits, int kLanes>
struct LaneTable {
    alignas(64) std::uint8_t at[1 << kBits][8];
    constexpr LaneTable() : at{} {
        for (int group = 0; group < (1 << kBits); ++group) {
            int k = 0;
            for (int bit = 0; bit < kBits; ++bit) {
                if ((group >> bit & 1) == 0) continue;
                for (int lane = 0; lane < kLanes; ++lane) at[group][k++] = static_cast<std::uint8_t>(kLanes * bit + lane);
            }
            for (; k < 8; ++k) at[group][k] = 0;
        }
    }
};
constexpr LaneTable<8, 1> kPositions;
constexpr LaneTable<4, 2> kDoubleLanes;

// Stages a word's hits 8 lanes per byte of bits.
void stage_dense(std::uint64_t bits, unsigned offset, std::uint16_t* out) {
    __m128i first = _mm_set1_epi16(static_cast<short>(offset));
    const __m128i eight = _mm_set1_epi16(8);
    for (int b = 0; b < 8; ++b, bits >>= 8) {
        const auto byte = static_cast<std::uint32_t>(bits & 0xffu);
        const __m128i positions = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(kPositions.at[byte]));
        _mm_storeu_si128(reinterpret_cast<__m128i*>(out), _mm_add_epi16(first, _mm_cvtepu8_epi16(positions)));
        out += std::popcount(byte);
        first = _mm_add_epi16(first, eight);
    }
}

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
#else
template <class T>
std::uint64_t hit_bits(const T* x) {
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

// Stages a word's hits from their bit positions, eight per round with no branch on the
// count until it passes eight (simdjson's flatten_bits): a data-dependent trip count
// mispredicts on most words. A round past the last hit writes positions that later
// words overwrite. (1M bool at 10%, the baseline forced on a Xeon: the first pass took
// 120 us in rounds of four, 80 us in rounds of eight; about four uops a hit bind it.)
// The stores stay scalar: GCC builds this file without its basic-block vectoriser
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
// mispredicted round of one word does not hold up the loads of the next (1M bool on the
// Xeon, the first pass alone: 95 us a word at a time, 80 us four at a time at 10% hits;
// 130 us and 109 us at 50%; eight at a time was no faster, sixteen slower). Returns the
// block's hits. Not inlined into the caller's per-block closure, which left the loop
// short of registers (10% slower).
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

// The hits of one block of len <= kBlock elements, counted only (Staging::counts_when_dense).
template <class T>
std::int64_t count_block_baseline(const T* x, std::int64_t len) {
    std::int64_t hits = 0;
    std::int64_t i = 0;
    for (; i + kWord <= len; i += kWord) hits += std::popcount(hit_bits(x + i));
    if (i < len) hits += std::popcount(partial_hit_bits(x + i, len - i));
    return hits;
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
// wait on the hit counts (1M bool at 10%: 31 us one word at a time, 22 us four at a time).
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

#if defined(VITALS_SCAN_AVX2)
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

// The path `best` stands for here; any other path as it is.
ScanPath resolved(ScanPath path) {
    if (path != ScanPath::best) return path;
    return avx512_vbmi2_allowed() ? ScanPath::avx512_vbmi2 : ScanPath::baseline;
}

}  // namespace

bool compress_supported(ScanPath path) {
    path = resolved(path);
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
    path = resolved(path);
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

template <class T>
StagedHits::StagedHits(const T* x, std::int64_t n, ScanPath path, Staging staging) {
    path = resolved(path);
    if (path == ScanPath::avx512_vbmi2 && !avx512_vbmi2_supported()) {
        throw std::logic_error("nonzero_scan: this CPU does not run AVX-512 VBMI2");
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
            stage ? stage_block_baseline(x + start, len, block_positions(block)) : count_block_baseline(x + start, len);
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
    // A loop the compiler vectorises: 16-bit loads widened to 64-bit stores.
    for_each_block([&](std::int64_t start, const std::uint16_t* positions, std::int64_t hits, std::int64_t first) {
        std::int64_t* block_out = out + first;
        for (std::int64_t j = 0; j < hits; ++j) block_out[j] = start + positions[j];
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
#pragma omp critical(vitals_nonzero_scan_failure)
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
