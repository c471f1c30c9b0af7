// The tutorial's MASK INDICES case study: a small module whose forward is a linear pass
// (input [128, 500] through Linear(500, 10)), then the indices of the elements of a
// mask tensor x above a threshold, each in a labelled region as in the tutorial
// ("LINEAR PASS", "MASK INDICES"), in two variants of the masked part:
//
// before: x and its mask in double; the mask is copied to the host (NumPy's argwhere
//         needed it there) and the indices are found on the host.
// after:  x in float, a bool mask, nonzero on x's own device: no round trip.
//
// The threshold is fixed by the density asked for (the tutorial derives it from the
// linear pass's output), so the two variants find the same share of indices.
//
// On a CPU the "copy" is a copy between host buffers, so the two still differ in the
// bytes they move; on a GPU the round trip dominates.
#pragma once

#include <cstdint>

#include "vitals/kernels/tensor.hpp"

namespace vitals::kernels {

// The threshold t with P(x > t) = density for standard normal x.
double density_threshold(double density);

class MaskIndices {
public:
    // n elements, a fraction `density` of them above the threshold, on `device`.
    MaskIndices(std::int64_t n, Device device, double density = 0.5, std::uint64_t seed = 0);

    // int64 [hits, 1] on the host.
    Tensor before() const;
    // int64 [hits, 1] on the device.
    Tensor after() const;

    double threshold() const { return threshold_; }

    // The linear pass's sizes: input [kBatch, kFeatures] through Linear(kFeatures, kOut).
    static constexpr std::int64_t kBatch = 128, kFeatures = 500, kOut = 10;

private:
    Tensor linear_pass() const;

    Tensor x_double_, x_float_;
    Tensor input_, weight_, bias_;
    double threshold_;
};

}  // namespace vitals::kernels
