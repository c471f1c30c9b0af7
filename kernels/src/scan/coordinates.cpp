// nonzero's second pass for two or more dimensions: the coordinates of the staged hits,
// written a row of the tensor at a time (see unravel_ascending).
#include "coordinates.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstddef>
#include <stdexcept>
#include <utility>

#if defined(__AVX2__)
#include <immintrin.h>
#endif

namespace vitals::kernels::scan {
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

#if defined(__AVX2__)
// For each pair of hits 2p and 2p + 1 in a group of eight 16-bit positions (the same 16
// bytes in both lanes), the byte shuffle that zero-extends hit 2p into the low lane's
// second 64 bits and hit 2p + 1 into the high lane's, and zeroes the first 64 bits of each.
struct PairColumns {
    alignas(32) std::uint8_t at[4][32];
    constexpr PairColumns() : at{} {
        for (int p = 0; p < 4; ++p) {
            for (int i = 0; i < 32; ++i) {
                const int hit = 2 * p + i / 16;
                const int slot = i % 16;
                at[p][i] = static_cast<std::uint8_t>(slot == 8 ? 2 * hit : slot == 9 ? 2 * hit + 1 : 0x80);
            }
        }
    }
};
constexpr PairColumns kPairColumns;
#endif

// Writes kRowGroup hits of one row: the row's leading coordinates and each hit's column
// (its flat index minus `row_begin`). No branch between them.
template <std::size_t kDims>
void write_row_group(const std::array<std::int64_t, kDims - 1>& lead, std::int64_t start, std::int64_t row_begin,
                     const std::uint16_t* positions, std::int64_t* out) {
    constexpr auto kStride = static_cast<std::int64_t>(kDims);
#if defined(__AVX2__)
    if constexpr (kDims == 2) {
        // (row, column) pairs, two hits a register: the group's eight 16-bit positions in
        // both lanes, one byte shuffle zero-extending a hit's position into each lane's
        // column slot (the row slot zeroed), one add of (row, offset) to both slots: two
        // shuffles per four hits, where widening then interleaving with the row took five.
        static_assert(kRowGroup == 8);
        const __m256i row_and_offset = _mm256_setr_epi64x(lead[0], start - row_begin, lead[0], start - row_begin);
        const __m256i group = _mm256_broadcastsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(positions)));
#pragma GCC unroll 4
        for (int pair = 0; pair < 4; ++pair) {
            const __m256i columns = _mm256_load_si256(reinterpret_cast<const __m256i*>(kPairColumns.at[pair]));
            const __m256i pairs = _mm256_add_epi64(_mm256_shuffle_epi8(group, columns), row_and_offset);
            _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + 4 * pair), pairs);
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
// No hit waits on the one before, and the divisions that unravel an index, costly per
// hit, happen once per row with hits at most.
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
        // group's last decides). A 2-D group starts on a 32-byte boundary, so that none of
        // its stores straddles two cache lines: a hit's pair is 16 bytes, and one written
        // alone below brings `out` there.
        if (kDims != 2 || (reinterpret_cast<std::uintptr_t>(out) & 31) == 0) {
            for (; i + kRowGroup <= count && start + positions[i + kRowGroup - 1] < end;
                 i += kRowGroup, out += kRowGroup * kDims) {
                write_row_group<kDims>(lead, start, begin, positions + i, out);
            }
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
        throw std::logic_error("scan::write_coordinates: the scan kept counts only (Staging::counts_when_dense)");
    }
    const auto dims = static_cast<std::int64_t>(shape.size());
    // Each block (on a thread of its own, perhaps) finds its first row anew: one division.
    hits.for_each_block([&](std::int64_t start, const std::uint16_t* positions, std::int64_t count, std::int64_t first) {
        if (count == 0) return;
        AscendingUnravel unravel(shape);
        unravel.write(start, positions, count, out + first * dims);
    });
}

}  // namespace vitals::kernels::scan
