// The scan's entries: the first pass, the result allocated at its count, then the
// second pass that fits the op and the path this CPU runs.
#include "scan.hpp"

#include <algorithm>
#include <cstdint>

#include "coordinates.hpp"
#include "masked_compress.hpp"
#include "staged_hits.hpp"
#include "type_dispatch.hpp"

namespace vitals::kernels::scan {
namespace {

// nonzero's second pass: widened straight into the result for one dimension,
// unravelled for more (nothing for a 0-D tensor).
void write_nonzero(const StagedHits& hits, const Shape& shape, std::int64_t* out) {
    if (shape.size() == 1) {
        hits.write_indices(out);
    } else if (shape.size() > 1) {
        write_coordinates(hits, shape, out);
    }
}

// masked_select's second pass on AVX-512 (off it, StagedValues writes the values): the
// values x[0, n) where mask, on which `hits` were staged, is non-zero, in order, to
// out[0, hits.count()). Hits common enough (compress_pays; counted only, then): a
// compress of the values, whose cost follows the elements, beats a gather at the staged
// positions, whose cost follows the hits.
template <class T, class M>
void write_selected(const StagedHits& hits, const M* mask, const T* x, std::int64_t n, T* out) {
    const bool dense = !hits.has_positions() || compress_pays(hits.count(), n);
    hits.for_each_block([&](std::int64_t start, const std::uint16_t* positions, std::int64_t count, std::int64_t first) {
        if (dense) {
            const std::int64_t len = std::min(kBlock, n - start);
            compress_values(mask + start, x + start, len, out + first, count);
            return;
        }
        const T* block = x + start;
        T* block_out = out + first;
        for (std::int64_t i = 0; i < count; ++i) block_out[i] = block[positions[i]];
    });
}

}  // namespace

Tensor nonzero(const Tensor& x) {
    // One row of coordinates per hit; a 0-D tensor, like torch's, gives rows of none.
    return with_any_type(x.dtype(), [&](auto zero) {
        using T = decltype(zero);
        const StagedHits hits(x.data<T>(), x.numel());
        Tensor out = Tensor::empty({hits.count(), x.dim()}, DType::i64, Device::cpu);
        write_nonzero(hits, x.shape(), out.data<std::int64_t>());
        return out;
    });
}

Tensor masked_select(const Tensor& x, const Tensor& mask) {
    const std::int64_t n = x.numel();
    return with_float_type(x.dtype(), [&](auto zero) {
        using T = decltype(zero);
        return with_any_type(mask.dtype(), [&](auto mask_zero) {
            using M = decltype(mask_zero);
            // Off AVX-512 the values are staged with the hits; on it they are gathered
            // at the staged positions, or compressed from a dense mask.
            if (!avx512_vbmi2_allowed()) {
                const StagedValues<T, M> staged(mask.data<M>(), x.data<T>(), n);
                Tensor out = Tensor::empty({staged.count()}, x.dtype(), Device::cpu);
                staged.write(out.data<T>());
                return out;
            }
            const StagedHits hits(mask.data<M>(), n, ScanPath::best, Staging::counts_when_dense);
            Tensor out = Tensor::empty({hits.count()}, x.dtype(), Device::cpu);
            write_selected<T, M>(hits, mask.data<M>(), x.data<T>(), n, out.data<T>());
            return out;
        });
    });
}

}  // namespace vitals::kernels::scan
