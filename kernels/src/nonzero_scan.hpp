// The CPU scan behind nonzero and masked_select: how many elements are non-zero, and
// where they are. Host-only; instantiated for the tensor element types
// (float, double, bool, std::int64_t).
#pragma once

#include <cstdint>

namespace vitals::kernels::nonzero_scan {

// The scan takes 64 elements at a time; on the baseline path of an AVX2 build a word of
// up to this many hits is written hit by hit, a denser one through a table of positions
// (measured crossover on Zen 4: 24-32). Without AVX2 every word goes hit by hit.
inline constexpr int kSparseWordHits = 24;

// Number of non-zero elements of x[0, n). NaN counts as non-zero, -0.0 as zero.
template <class T>
std::int64_t count(const T* x, std::int64_t n);

// The code the scan runs: `best` is AVX-512 VBMI2 where the CPU has it (and not under
// Valgrind, which hides it), else the baseline the library was compiled for.
enum class ScanPath { best, baseline, avx512_vbmi2 };

// Whether this CPU runs the AVX-512 VBMI2 path.
bool avx512_vbmi2_supported();

// Writes the positions (0-based, ascending) of the non-zero elements of x[0, n) to
// out and returns how many there are. `capacity` is how many entries out holds; it must
// be at least count(x, n): if x holds more hits, std::logic_error is thrown and nothing
// is written at out[capacity] or beyond. Asking for avx512_vbmi2 on a CPU without it
// throws std::logic_error too.
template <class T>
std::int64_t write_indices(const T* x, std::int64_t n, std::int64_t* out, std::int64_t capacity,
                           ScanPath path = ScanPath::best);

}  // namespace vitals::kernels::nonzero_scan
