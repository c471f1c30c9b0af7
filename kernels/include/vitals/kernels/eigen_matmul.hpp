// x @ y on the CPU with Eigen: the tutorial's first measured statement.
#pragma once

#include <Eigen/Core>
#include <cstdint>

namespace vitals::kernels {

// Inputs and output of z = x @ y for n x n matrices of T, filled from a fixed seed so
// every run times the same data.
template <class T>
struct EigenMatmul {
    using Matrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>;
    Matrix x, y, z;

    explicit EigenMatmul(Eigen::Index n, std::uint64_t seed = 0);
    // z = x @ y without a temporary.
    void run() { z.noalias() = x * y; }
};

extern template struct EigenMatmul<float>;
extern template struct EigenMatmul<double>;

}  // namespace vitals::kernels
