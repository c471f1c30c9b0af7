// The measuring loops. Streaming kernels are built three times (AVX-512 and AVX2 with
// vector loads and stores of their own, baseline as plain loops) and picked at run time,
// as the FMA chains are:
// the widest this CPU runs, capped by VITALS_MAX_CPU_ISA (by a plain check, not an
// ifunc: ifunc resolvers run before a sanitizer's runtime is ready). FMA
// chains are written with intrinsics: 12 independent accumulators hide the FMA latency
// on two FMA units (4 cycles x 2 units = 8 in flight at least).
#include "probes.hpp"

#include "vitals/cpu_isa.hpp"

#include <cstring>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace vitals::machine::detail {
namespace {

constexpr int kChains = 12;

bool has_avx512() {
#if defined(__x86_64__)
    return __builtin_cpu_supports("avx512f");
#else
    return false;
#endif
}
bool has_avx2() {
#if defined(__x86_64__)
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#else
    return false;
#endif
}

#if defined(__x86_64__)
__attribute__((target("avx512f"))) float chains_avx512_f32(std::int64_t iterations) {
    __m512 acc[kChains];
    for (int k = 0; k < kChains; ++k) acc[k] = _mm512_set1_ps(1.0f + 0.001f * static_cast<float>(k));
    const __m512 a = _mm512_set1_ps(0.999999f), b = _mm512_set1_ps(1e-7f);
    for (std::int64_t i = 0; i < iterations; ++i) {
        for (int k = 0; k < kChains; ++k) acc[k] = _mm512_fmadd_ps(acc[k], a, b);
    }
    for (int k = 1; k < kChains; ++k) acc[0] = _mm512_add_ps(acc[0], acc[k]);
    alignas(64) float lanes[16];
    _mm512_store_ps(lanes, acc[0]);
    float sum = 0;
    for (float v : lanes) sum += v;
    return sum;
}
__attribute__((target("avx512f"))) double chains_avx512_f64(std::int64_t iterations) {
    __m512d acc[kChains];
    for (int k = 0; k < kChains; ++k) acc[k] = _mm512_set1_pd(1.0 + 0.001 * k);
    const __m512d a = _mm512_set1_pd(0.999999), b = _mm512_set1_pd(1e-7);
    for (std::int64_t i = 0; i < iterations; ++i) {
        for (int k = 0; k < kChains; ++k) acc[k] = _mm512_fmadd_pd(acc[k], a, b);
    }
    for (int k = 1; k < kChains; ++k) acc[0] = _mm512_add_pd(acc[0], acc[k]);
    alignas(64) double lanes[8];
    _mm512_store_pd(lanes, acc[0]);
    double sum = 0;
    for (double v : lanes) sum += v;
    return sum;
}
__attribute__((target("avx2,fma"))) float chains_avx2_f32(std::int64_t iterations) {
    __m256 acc[kChains];
    for (int k = 0; k < kChains; ++k) acc[k] = _mm256_set1_ps(1.0f + 0.001f * static_cast<float>(k));
    const __m256 a = _mm256_set1_ps(0.999999f), b = _mm256_set1_ps(1e-7f);
    for (std::int64_t i = 0; i < iterations; ++i) {
        for (int k = 0; k < kChains; ++k) acc[k] = _mm256_fmadd_ps(acc[k], a, b);
    }
    for (int k = 1; k < kChains; ++k) acc[0] = _mm256_add_ps(acc[0], acc[k]);
    alignas(32) float lanes[8];
    _mm256_store_ps(lanes, acc[0]);
    float sum = 0;
    for (float v : lanes) sum += v;
    return sum;
}
__attribute__((target("avx2,fma"))) double chains_avx2_f64(std::int64_t iterations) {
    __m256d acc[kChains];
    for (int k = 0; k < kChains; ++k) acc[k] = _mm256_set1_pd(1.0 + 0.001 * k);
    const __m256d a = _mm256_set1_pd(0.999999), b = _mm256_set1_pd(1e-7);
    for (std::int64_t i = 0; i < iterations; ++i) {
        for (int k = 0; k < kChains; ++k) acc[k] = _mm256_fmadd_pd(acc[k], a, b);
    }
    for (int k = 1; k < kChains; ++k) acc[0] = _mm256_add_pd(acc[0], acc[k]);
    alignas(32) double lanes[4];
    _mm256_store_pd(lanes, acc[0]);
    return lanes[0] + lanes[1] + lanes[2] + lanes[3];
}
#endif

template <class T>
T chains_scalar(std::int64_t iterations) {
    T acc[kChains];
    for (int k = 0; k < kChains; ++k) acc[k] = T(1) + T(0.001) * static_cast<T>(k);
    const T a = T(0.999999), b = T(1e-7);
    for (std::int64_t i = 0; i < iterations; ++i) {
        for (int k = 0; k < kChains; ++k) acc[k] = acc[k] * a + b;
    }
    T sum = 0;
    for (T v : acc) sum += v;
    return sum;
}

}  // namespace

const char* vector_isa() {
    switch (widest_isa()) {
        case Isa::avx512: return "avx512";
        case Isa::avx2: return "avx2";
        case Isa::baseline: break;
    }
    return "scalar";
}

double fma_flops_per_iteration(bool f64) {
    const int element_bytes = f64 ? 8 : 4;
    int lanes = 1;
    switch (widest_isa()) {
        case Isa::avx512: lanes = 64 / element_bytes; break;
        case Isa::avx2: lanes = 32 / element_bytes; break;
        case Isa::baseline: break;
    }
    return 2.0 * kChains * lanes;
}

float fma_chain_f32(std::int64_t iterations) {
#if defined(__x86_64__)
    if (widest_isa() == Isa::avx512) return chains_avx512_f32(iterations);
    if (widest_isa() == Isa::avx2) return chains_avx2_f32(iterations);
#endif
    return chains_scalar<float>(iterations);
}

double fma_chain_f64(std::int64_t iterations) {
#if defined(__x86_64__)
    if (widest_isa() == Isa::avx512) return chains_avx512_f64(iterations);
    if (widest_isa() == Isa::avx2) return chains_avx2_f64(iterations);
#endif
    return chains_scalar<double>(iterations);
}

// The streaming loops in plain C++, for CPUs without AVX2. The x86 vector sets have their
// own read, copy and triad loops, below.
#define VITALS_READ_LOOP(suffix, attributes)                                                                       \
    attributes std::uint64_t read_##suffix(const std::uint64_t* a, std::size_t n) {                               \
        /* four independent vector sums: one would wait on its own adds, not on the loads */                      \
        Lanes s0{}, s1{}, s2{}, s3{};                                                                              \
        std::size_t i = 0;                                                                                         \
        for (; i + 32 <= n; i += 32) {                                                                             \
            Lanes v0, v1, v2, v3;                                                                                  \
            std::memcpy(&v0, a + i, 64);                                                                           \
            std::memcpy(&v1, a + i + 8, 64);                                                                       \
            std::memcpy(&v2, a + i + 16, 64);                                                                      \
            std::memcpy(&v3, a + i + 24, 64);                                                                      \
            s0 += v0;                                                                                              \
            s1 += v1;                                                                                              \
            s2 += v2;                                                                                              \
            s3 += v3;                                                                                              \
        }                                                                                                          \
        const Lanes total = s0 + s1 + s2 + s3;                                                                     \
        std::uint64_t sum = 0;                                                                                     \
        for (int k = 0; k < 8; ++k) sum += total[k];                                                               \
        for (; i < n; ++i) sum += a[i];                                                                            \
        return sum;                                                                                                \
    }
#define VITALS_COPY_LOOP(suffix, attributes)                                                                       \
    attributes void copy_##suffix(std::uint64_t* __restrict dst, const std::uint64_t* __restrict src, std::size_t n) { \
        for (std::size_t i = 0; i < n; ++i) dst[i] = src[i];                                                       \
    }
#define VITALS_TRIAD_LOOP(suffix, attributes)                                                                      \
    attributes void triad_##suffix(double* __restrict a, const double* __restrict b, const double* __restrict c,  \
                                   double s, std::size_t n) {                                                      \
        for (std::size_t i = 0; i < n; ++i) a[i] = b[i] + s * c[i];                                                \
    }

namespace {
// Eight 64-bit lanes (GCC's vector extension): one zmm register with AVX-512, two ymm
// with AVX2, four xmm otherwise.
typedef std::uint64_t Lanes __attribute__((vector_size(64)));

VITALS_READ_LOOP(baseline, )
VITALS_COPY_LOOP(baseline, )
VITALS_TRIAD_LOOP(baseline, )
#if defined(__x86_64__)
// Copy four vectors a round, loads first, as likwid-bench's `copy` kernel. The plain loop
// above is compiled into a call of memcpy, which measures the C library's choice instead
// of the core's loads and stores (`rep movsb` on AMD cores with fast short strings,
// non-temporal stores past a size).
#define VITALS_UNROLLED_COPY(suffix, attributes, Vector, load, store, lanes)                                       \
    attributes void copy_##suffix(std::uint64_t* __restrict dst, const std::uint64_t* __restrict src, std::size_t n) { \
        std::size_t i = 0;                                                                                         \
        for (; i + 4 * (lanes) <= n; i += 4 * (lanes)) {                                                           \
            const Vector v0 = load(reinterpret_cast<const Vector*>(src + i));                                      \
            const Vector v1 = load(reinterpret_cast<const Vector*>(src + i + (lanes)));                            \
            const Vector v2 = load(reinterpret_cast<const Vector*>(src + i + 2 * (lanes)));                        \
            const Vector v3 = load(reinterpret_cast<const Vector*>(src + i + 3 * (lanes)));                        \
            store(reinterpret_cast<Vector*>(dst + i), v0);                                                         \
            store(reinterpret_cast<Vector*>(dst + i + (lanes)), v1);                                               \
            store(reinterpret_cast<Vector*>(dst + i + 2 * (lanes)), v2);                                           \
            store(reinterpret_cast<Vector*>(dst + i + 3 * (lanes)), v3);                                           \
        }                                                                                                          \
        for (; i < n; ++i) dst[i] = src[i];                                                                        \
    }
VITALS_UNROLLED_COPY(avx512, __attribute__((target("avx512f"))), __m512i, _mm512_loadu_si512, _mm512_storeu_si512, 8)
VITALS_UNROLLED_COPY(avx2, __attribute__((target("avx2,fma"))), __m256i, _mm256_loadu_si256, _mm256_storeu_si256, 4)
#undef VITALS_UNROLLED_COPY

// Read bandwidth as likwid-bench's `load` kernel measures it: eight vector loads a round
// into registers, and nothing done with them. A loop that sums what it loads is bound by
// its adds, not its loads, at L1.
// read_<suffix> runs rounds of eight `load`s into `width`-byte `reg` registers. The asm is
// volatile, so it is never removed; what is returned is the elements past the last round.
#define VITALS_LOADS_ONLY_READ(suffix, attributes, load, reg, width)                                               \
    attributes std::uint64_t read_##suffix(const std::uint64_t* a, std::size_t n) {                               \
        const std::size_t whole = n / (width) * (width); /* a round: 8 x width bytes, width elements */           \
        if (whole > 0) {                                                                                           \
            const std::uint64_t* p = a;                                                                            \
            const std::uint64_t* const end = a + whole;                                                            \
            asm volatile("1:\n\t"                                                                                  \
                         load " 0*" #width "(%[p]), %%" reg "0\n\t" load " 1*" #width "(%[p]), %%" reg "1\n\t"    \
                         load " 2*" #width "(%[p]), %%" reg "2\n\t" load " 3*" #width "(%[p]), %%" reg "3\n\t"    \
                         load " 4*" #width "(%[p]), %%" reg "4\n\t" load " 5*" #width "(%[p]), %%" reg "5\n\t"    \
                         load " 6*" #width "(%[p]), %%" reg "6\n\t" load " 7*" #width "(%[p]), %%" reg "7\n\t"    \
                         "add $8*" #width ", %[p]\n\tcmp %[end], %[p]\n\tjb 1b"                                    \
                         : [p] "+r"(p)                                                                             \
                         : [end] "r"(end)                                                                          \
                         : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "cc", "memory");        \
        }                                                                                                          \
        std::uint64_t sum = 0;                                                                                     \
        for (std::size_t i = whole; i < n; ++i) sum += a[i];                                                       \
        return sum;                                                                                                \
    }
VITALS_LOADS_ONLY_READ(avx512, __attribute__((target("avx512f"))), "vmovdqu64", "zmm", 64)
VITALS_LOADS_ONLY_READ(avx2, __attribute__((target("avx2,fma"))), "vmovdqu", "ymm", 32)
#undef VITALS_LOADS_ONLY_READ

// Triad four vectors of `lanes` doubles a round, written loads first, as likwid's
// `stream` loop; GCC schedules each vector's load, FMA and store together anyway, and the
// core reorders them. A plain loop of one vector a round falls short of likwid's at L2.
// `mm` is the intrinsics' prefix.
#define VITALS_UNROLLED_TRIAD(suffix, attributes, Vector, mm, lanes)                                               \
    attributes void triad_##suffix(double* __restrict a, const double* __restrict b, const double* __restrict c,  \
                                   double s, std::size_t n) {                                                      \
        const Vector scale = mm##_set1_pd(s);                                                                      \
        std::size_t i = 0;                                                                                         \
        for (; i + 4 * (lanes) <= n; i += 4 * (lanes)) {                                                           \
            const Vector c0 = mm##_loadu_pd(c + i), c1 = mm##_loadu_pd(c + i + (lanes));                           \
            const Vector c2 = mm##_loadu_pd(c + i + 2 * (lanes)), c3 = mm##_loadu_pd(c + i + 3 * (lanes));         \
            mm##_storeu_pd(a + i, mm##_fmadd_pd(scale, c0, mm##_loadu_pd(b + i)));                                 \
            mm##_storeu_pd(a + i + (lanes), mm##_fmadd_pd(scale, c1, mm##_loadu_pd(b + i + (lanes))));             \
            mm##_storeu_pd(a + i + 2 * (lanes), mm##_fmadd_pd(scale, c2, mm##_loadu_pd(b + i + 2 * (lanes))));     \
            mm##_storeu_pd(a + i + 3 * (lanes), mm##_fmadd_pd(scale, c3, mm##_loadu_pd(b + i + 3 * (lanes))));     \
        }                                                                                                          \
        for (; i < n; ++i) a[i] = b[i] + s * c[i];                                                                 \
    }
VITALS_UNROLLED_TRIAD(avx512, __attribute__((target("avx512f"))), __m512d, _mm512, 8)
VITALS_UNROLLED_TRIAD(avx2, __attribute__((target("avx2,fma"))), __m256d, _mm256, 4)
#undef VITALS_UNROLLED_TRIAD
#endif

}  // namespace

Isa widest_isa() {
    static const Isa found = [] {
        // Read first, so that a bad VITALS_MAX_CPU_ISA throws before anything is
        // measured on every CPU, not only on those with AVX-512.
        const MaxCpuIsa cap = max_cpu_isa();
        if (has_avx512() && cap == MaxCpuIsa::avx512) return Isa::avx512;
        return has_avx2() ? Isa::avx2 : Isa::baseline;
    }();
    return found;
}

bool capped() { return runs(Isa::avx512) && widest_isa() != Isa::avx512; }

bool runs(Isa isa) {
    switch (isa) {
        case Isa::avx512: return has_avx512();
        case Isa::avx2: return has_avx2();
        case Isa::baseline: return true;
    }
    return false;
}

std::uint64_t read_kernel(const std::uint64_t* a, std::size_t n, Isa isa) {
#if defined(__x86_64__)
    if (isa == Isa::avx512) return read_avx512(a, n);
    if (isa == Isa::avx2) return read_avx2(a, n);
#endif
    return read_baseline(a, n);
}

void copy_kernel(std::uint64_t* __restrict dst, const std::uint64_t* __restrict src, std::size_t n, Isa isa) {
#if defined(__x86_64__)
    if (isa == Isa::avx512) return copy_avx512(dst, src, n);
    if (isa == Isa::avx2) return copy_avx2(dst, src, n);
#endif
    copy_baseline(dst, src, n);
}

void triad_kernel(double* __restrict a, const double* __restrict b, const double* __restrict c, double s, std::size_t n,
                  Isa isa) {
#if defined(__x86_64__)
    if (isa == Isa::avx512) return triad_avx512(a, b, c, s, n);
    if (isa == Isa::avx2) return triad_avx2(a, b, c, s, n);
#endif
    triad_baseline(a, b, c, s, n);
}

}  // namespace vitals::machine::detail
