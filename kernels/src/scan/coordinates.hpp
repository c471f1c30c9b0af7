// The second pass of nonzero for a tensor of two or more dimensions: the row-major
// coordinates of the hits StagedHits found, written a row of the tensor at a time.
// Internal header.
#pragma once

#include <cstdint>

#include "staged_hits.hpp"
#include "vitals/kernels/tensor.hpp"

namespace vitals::kernels::scan {

// Writes the coordinates of `hits`, found on a tensor of `shape` (2 or more dimensions),
// to out[0, hits.count() * shape.size()): shape.size() per hit, in order.
void write_coordinates(const StagedHits& hits, const Shape& shape, std::int64_t* out);

}  // namespace vitals::kernels::scan
