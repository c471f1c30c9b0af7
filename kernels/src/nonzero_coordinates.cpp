// nonzero's second pass for two or more dimensions: the coordinates of the staged hits,
// written a row of the tensor at a time (see unravel_ascending).
#include "nonzero_coordinates.hpp"

#include <algorithm>
#include <array>
#include <cstddef>
#include <stdexcept>
#include <utility>

#if defined(__AVX2__)
#include <immintrin.h>
#endif

namespace vitals::kernels::nonzero_scan {
namespace {

// The row (a run of the last dimension) that the latest hit fell in: its flat range
// and its leading coordinates. No row yet: end == 0.
struct CurrentRow {
    std::int64_t begin = 0;
    std::int64_t end = 0;
    std::array<std::int64_t, 3> lead{};  // ranks 2 to 4 use the first dims() - 1
};

// Hits a group of unravel_ascending writes at once, all in one row.
constexpr std::int64_t kRowGroup = 8;

// Writes kRowGroup hits of one row: the row's leading coordinates and each hit's column
// (its flat index minus `row_begin`). No branch between them.
template <std::size_t kDims>
void write_row_group(const std::array<std::int64_t, kDims - 1>& lead, std::int64_t start, std::int64_t row_begin,
                     const std::uint16_t* positions, std::int64_t* out) {
    constexpr auto kStride = static_cast<std::int64_t>(kDims);
#if defined(__AVX2__)
    if constexpr (kDims == 2) {
        // (row, column) pairs: 4 columns widened at once, interleaved with the row.
        const __m256i row_index = _mm256_set1_epi64x(lead[0]);
        const __m256i offset = _mm256_set1_epi64x(start - row_begin);
        for (std::int64_t j = 0; j < kRowGroup; j += 4) {
            const __m128i four = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(positions + j));
            const __m256i column = _mm256_add_epi64(_mm256_cvtepu16_epi64(four), offset);
            const __m256i even = _mm256_unpacklo_epi64(row_index, column);  // hits 0 and 2
            const __m256i odd = _mm256_unpackhi_epi64(row_index, column);   // hits 1 and 3
            _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + 2 * j), _mm256_permute2x128_si256(even, odd, 0x20));
            _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + 2 * j + 4), _mm256_permute2x128_si256(even, odd, 0x31));
        }
        return;
    }
#endif
    for (std::int64_t j = 0; j < kRowGroup; ++j, out += kStride) {
        std::copy(lead.begin(), lead.end(), out);
        out[kStride - 1] = start + positions[j] - row_begin;
    }
}

// Row-major coordinates of ascending flat indices, a row at a time: a hit in the current
// row writes the row's leading coordinates and its offset in the row; only a step into
// another row moves the row (a carry into the next one, a division to one further on).
// No hit waits on the one before, and a division per coordinate per hit (which made a
// 2-D nonzero 10x slower than 1-D) happens once per row with hits at most.
template <std::size_t kDims>
void unravel_ascending(std::int64_t start, const std::uint16_t* positions, std::int64_t count, const Shape& shape,
                       CurrentRow& row, std::int64_t* out) {
    constexpr std::size_t kLead = kDims - 1;
    std::array<std::int64_t, kDims> extent{};
    std::copy_n(shape.begin(), kDims, extent.begin());
    const std::int64_t width = extent[kLead];
    // Locals, so that the writes to `out` cannot alias them.
    std::array<std::int64_t, kLead> lead{};
    std::copy_n(row.lead.begin(), kLead, lead.begin());
    std::int64_t begin = row.begin;
    std::int64_t end = row.end;
    std::int64_t i = 0;
    while (i < count) {
        // Whole groups while they stay in the current row (the indices ascend, so the
        // group's last decides).
        for (; i + kRowGroup <= count && start + positions[i + kRowGroup - 1] < end; i += kRowGroup, out += kRowGroup * kDims) {
            write_row_group<kDims>(lead, start, begin, positions + i, out);
        }
        if (i == count) break;
        const std::int64_t flat = start + positions[i];
        if (flat >= end) {
            if (end != 0 && flat < end + width) {
                begin = end;
                ++lead[kLead - 1];
                for (std::size_t d = kLead - 1; d > 0 && lead[d] == extent[d]; --d) {
                    lead[d] = 0;
                    ++lead[d - 1];
                }
            } else {
                std::int64_t rest = flat / width;
                begin = rest * width;
                for (std::size_t d = kLead; d-- > 0;) {
                    lead[d] = rest % extent[d];
                    rest /= extent[d];
                }
            }
            end = begin + width;
        }
        for (std::size_t d = 0; d < kLead; ++d) out[d] = lead[d];
        out[kLead] = flat - begin;
        ++i;
        out += kDims;
    }
    std::copy_n(lead.begin(), kLead, row.lead.begin());
    row.begin = begin;
    row.end = end;
}

// Writes the coordinates of a tensor's hits block by block (the indices ascend across
// blocks): ranks 2 to 4 a row at a time, higher ranks by a division per hit.
class AscendingUnravel {
public:
    explicit AscendingUnravel(Shape shape) : shape_(std::move(shape)) {}

    void write(std::int64_t start, const std::uint16_t* positions, std::int64_t count, std::int64_t* out) {
        switch (shape_.size()) {
            case 2: return unravel_ascending<2>(start, positions, count, shape_, row_, out);
            case 3: return unravel_ascending<3>(start, positions, count, shape_, row_, out);
            case 4: return unravel_ascending<4>(start, positions, count, shape_, row_, out);
            default: break;
        }
        const auto dims = static_cast<std::int64_t>(shape_.size());
        for (std::int64_t i = 0; i < count; ++i) {
            std::int64_t rest = start + positions[i];
            for (std::int64_t d = dims - 1; d >= 0; --d) {
                const std::int64_t extent = shape_[static_cast<std::size_t>(d)];
                out[i * dims + d] = rest % extent;
                rest /= extent;
            }
        }
    }

private:
    Shape shape_;
    CurrentRow row_;
};

}  // namespace

void write_coordinates(const StagedHits& hits, const Shape& shape, std::int64_t* out) {
    if (!hits.has_positions()) {
        throw std::logic_error("nonzero_scan::write_coordinates: the scan kept counts only (Staging::counts_when_dense)");
    }
    const auto dims = static_cast<std::int64_t>(shape.size());
    // Each block (on a thread of its own, perhaps) finds its first row anew: one division.
    hits.for_each_block([&](std::int64_t start, const std::uint16_t* positions, std::int64_t count, std::int64_t first) {
        if (count == 0) return;
        AscendingUnravel unravel(shape);
        unravel.write(start, positions, count, out + first * dims);
    });
}

}  // namespace vitals::kernels::nonzero_scan
