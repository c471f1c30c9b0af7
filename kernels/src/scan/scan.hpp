// The CPU scan behind nonzero and masked_select: the kernel set's two entries to it. Each
// finds the hits in one pass, allocates its result at the exact size, then writes it
// (staged_hits.hpp tells how). Internal to the kernel set; ops.cpp checks the arguments
// first.
#pragma once

#include "vitals/kernels/tensor.hpp"

namespace vitals::kernels::scan {

// nonzero of a CPU tensor of any dtype: [hits, x.dim()] int64, the row-major coordinates
// of each non-zero element (NaN counts, -0.0 does not), in order.
Tensor nonzero(const Tensor& x);

// masked_select of a CPU float or double tensor by a CPU mask of any dtype and the same
// number of elements: the values where the mask is non-zero, in order.
Tensor masked_select(const Tensor& x, const Tensor& mask);

}  // namespace vitals::kernels::scan
