// The tutorial's MASK INDICES case study as two variants of one workload: find the
// indices of the elements of x above a threshold.
//
// before: x and its mask in double; the mask is copied to the host (NumPy's argwhere
//         needed it there) and the indices are found on the host.
// after:  x in float, a bool mask, nonzero on x's own device: no round trip.
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

private:
    Tensor x_double_, x_float_;
    double threshold_;
};

}  // namespace vitals::kernels
