// The CPU scan behind nonzero and masked_select: how many elements are non-zero, and
// where they are. Host-only; instantiated for the tensor element types
// (float, double, bool, std::int64_t).
#pragma once

#include <cstdint>

namespace vitals::kernels::nonzero_scan {

// The scan takes 64 elements at a time; a word of up to this many hits is written hit by
// hit, a denser one through a table of positions (measured crossover on Zen 4: 24-32).
inline constexpr int kSparseWordHits = 24;

// Number of non-zero elements of x[0, n). NaN counts as non-zero, -0.0 as zero.
template <class T>
std::int64_t count(const T* x, std::int64_t n);

// Writes the positions (0-based, ascending) of the non-zero elements of x[0, n) to
// out and returns how many there are. `capacity` is how many entries out holds; it must
// be at least count(x, n). Nothing is written at out[capacity] or beyond.
template <class T>
std::int64_t write_indices(const T* x, std::int64_t n, std::int64_t* out, std::int64_t capacity);

}  // namespace vitals::kernels::nonzero_scan
