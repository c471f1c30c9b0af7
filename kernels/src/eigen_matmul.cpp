#include "vitals/kernels/eigen_matmul.hpp"

#include <random>

namespace vitals::kernels {

template <class T>
EigenMatmul<T>::EigenMatmul(Eigen::Index n, std::uint64_t seed) : x(n, n), y(n, n), z(n, n) {
    std::mt19937_64 engine(seed);
    std::normal_distribution<T> normal(0, 1);  // torch.randn's distribution
    for (Matrix* m : {&x, &y}) {
        for (Eigen::Index i = 0; i < m->size(); ++i) m->data()[i] = normal(engine);
    }
    z.setZero();
}

template struct EigenMatmul<float>;
template struct EigenMatmul<double>;

}  // namespace vitals::kernels
