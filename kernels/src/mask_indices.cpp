#include "vitals/kernels/mask_indices.hpp"

#include <fmt/format.h>

#include <cmath>
#include <stdexcept>

#include "vitals/kernels/ops.hpp"
#include "vitals/profiler/record_function.hpp"

namespace vitals::kernels {
// The standard normal quantile for 1 - density, by bisection on erfc.
double density_threshold(double density) {
    double low = -10.0, high = 10.0;
    for (int i = 0; i < 200; ++i) {
        const double mid = (low + high) / 2;
        const double above = 0.5 * std::erfc(mid / std::sqrt(2.0));
        (above > density ? low : high) = mid;
    }
    return (low + high) / 2;
}

MaskIndices::MaskIndices(std::int64_t n, Device device, double density, std::uint64_t seed)
    : threshold_(density_threshold(density)) {
    if (!(density > 0.0 && density < 1.0)) {
        throw std::invalid_argument(fmt::format("MaskIndices: density must be in (0, 1), got {}", density));
    }
    x_double_ = Tensor::randn({n}, DType::f64, device, seed);
    x_float_ = Tensor::randn({n}, DType::f32, device, seed);
    input_ = Tensor::randn({kBatch, kFeatures}, DType::f32, device, seed + 1);
    weight_ = Tensor::randn({kOut, kFeatures}, DType::f32, device, seed + 2);
    bias_ = Tensor::randn({kOut}, DType::f32, device, seed + 3);
}

Tensor MaskIndices::linear_pass() const {
    VITALS_RECORD_FUNCTION("LINEAR PASS");
    return linear(input_, weight_, bias_);
}

Tensor MaskIndices::before() const {
    const Tensor out = linear_pass();
    VITALS_RECORD_FUNCTION("MASK INDICES");
    const Tensor mask = gt(x_double_, threshold_, DType::f64);
    const Tensor host_mask = copy_to(mask, Device::cpu);
    return nonzero(host_mask);
}

Tensor MaskIndices::after() const {
    const Tensor out = linear_pass();
    VITALS_RECORD_FUNCTION("MASK INDICES");
    return nonzero(gt(x_float_, threshold_, DType::boolean));
}

}  // namespace vitals::kernels
