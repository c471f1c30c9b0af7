// The CPU side of the kernel set. The loops are written so that the compiler vectorises
// them under the kernel set's -march (kernels/CMakeLists.txt).
#include "cpu_backend.hpp"

#include <Eigen/Core>
#include <limits>
#include <type_traits>

#include "elementwise.hpp"

namespace vitals::kernels::cpu_backend {
namespace {

template <class T>
using RowMatrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

template <class C, class A, class B>
void assign_product(C&& c, const A& a, const B& b, bool accumulate) {
    if (accumulate) {
        c.noalias() += a * b;
    } else {
        c.noalias() = a * b;
    }
}

// A predicate's bool as 1 or 0 of the output type; spelled as a select so that the loop
// around it vectorises (GCC does not vectorise a bool-to-float cast).
template <class Out, class V>
Out to_output(V v) {
    if constexpr (std::is_same_v<V, bool>) {
        return v ? Out(1) : Out(0);
    } else {
        return static_cast<Out>(v);
    }
}

// out[i] = f(x[i]) over a whole tensor.
template <class In, class Out, class F>
void cpu_map(const In* x, Out* out, std::int64_t n, F f) {
    for (std::int64_t i = 0; i < n; ++i) out[i] = to_output<Out>(f(x[i]));
}
template <class T, class F>
void cpu_map2(const T* x, const T* y, T* out, std::int64_t n, F f) {
    for (std::int64_t i = 0; i < n; ++i) out[i] = f(x[i], y[i]);
}

// Calls f(std::integral_constant<Relation, op>{}): the operator as a compile-time value.
template <class F>
void with_relation(Relation op, F&& f) {
    switch (op) {
        case Relation::gt: return f(std::integral_constant<Relation, Relation::gt>{});
        case Relation::ge: return f(std::integral_constant<Relation, Relation::ge>{});
        case Relation::lt: return f(std::integral_constant<Relation, Relation::lt>{});
        case Relation::le: return f(std::integral_constant<Relation, Relation::le>{});
        case Relation::eq: return f(std::integral_constant<Relation, Relation::eq>{});
        case Relation::ne: return f(std::integral_constant<Relation, Relation::ne>{});
    }
}

}  // namespace

template <class T>
void gemm(bool transpose_a, bool transpose_b, std::int64_t m, std::int64_t n, std::int64_t k, const T* a, const T* b,
          T* c, bool accumulate) {
    Eigen::Map<RowMatrix<T>> C(c, m, n);
    const Eigen::Map<const RowMatrix<T>> A(a, transpose_a ? k : m, transpose_a ? m : k);
    const Eigen::Map<const RowMatrix<T>> B(b, transpose_b ? n : k, transpose_b ? k : n);
    if (!transpose_a && !transpose_b) assign_product(C, A, B, accumulate);
    if (!transpose_a && transpose_b) assign_product(C, A, B.transpose(), accumulate);
    if (transpose_a && !transpose_b) assign_product(C, A.transpose(), B, accumulate);
    if (transpose_a && transpose_b) assign_product(C, A.transpose(), B.transpose(), accumulate);
}

template <class T>
void broadcast_rows(const T* bias, T* c, std::int64_t rows, std::int64_t cols) {
    const Eigen::Map<const Eigen::Matrix<T, 1, Eigen::Dynamic>> row(bias, cols);
    Eigen::Map<RowMatrix<T>>(c, rows, cols).rowwise() = row;
}

template <class T>
void sum_rows(const T* x, T* out, std::int64_t rows, std::int64_t cols) {
    Eigen::Map<Eigen::Matrix<T, 1, Eigen::Dynamic>>(out, cols) = Eigen::Map<const RowMatrix<T>>(x, rows, cols).colwise().sum();
}

template <class T>
void relu(const T* x, T* out, std::int64_t n) {
    cpu_map(x, out, n, elementwise::Relu{});
}

template <class T>
void relu_backward(const T* grad, const T* input, T* out, std::int64_t n) {
    cpu_map2(grad, input, out, n, elementwise::ReluBackward{});
}

template <class T, class M>
void relation_mask(const T* x, Relation op, T scalar, M* out, std::int64_t n) {
    with_relation(op, [&](auto op_constant) {
        const elementwise::RelationTo<decltype(op_constant)::value, T> predicate{scalar};
        cpu_map(x, out, n, predicate);
    });
}

template <class T>
void mse_loss(const T* pred, const T* target, T* out, std::int64_t n) {
    const elementwise::SquaredError<T> squared;
    double sum = 0.0;  // double accumulation: a float sum of many terms drifts
    for (std::int64_t i = 0; i < n; ++i) sum += squared(pred[i], target[i]);
    *out = n == 0 ? std::numeric_limits<T>::quiet_NaN() : static_cast<T>(sum / static_cast<double>(n));
}

template <class T>
void mse_loss_backward(const T* pred, const T* target, T* out, std::int64_t n) {
    const elementwise::MseBackward<T> grad{static_cast<T>(2.0 / static_cast<double>(n))};
    cpu_map2(pred, target, out, n, grad);
}

template <class T>
void sgd_step(T* param, const T* grad, T lr, std::int64_t n) {
    cpu_map2(param, grad, param, n, elementwise::SgdStep<T>{lr});
}

#define VITALS_CPU_INSTANTIATE(T)                                                                                       \
    template void gemm<T>(bool, bool, std::int64_t, std::int64_t, std::int64_t, const T*, const T*, T*, bool);          \
    template void broadcast_rows<T>(const T*, T*, std::int64_t, std::int64_t);                                          \
    template void sum_rows<T>(const T*, T*, std::int64_t, std::int64_t);                                                \
    template void relu<T>(const T*, T*, std::int64_t);                                                                  \
    template void relu_backward<T>(const T*, const T*, T*, std::int64_t);                                               \
    template void relation_mask<T, bool>(const T*, Relation, T, bool*, std::int64_t);                                   \
    template void relation_mask<T, float>(const T*, Relation, T, float*, std::int64_t);                                 \
    template void relation_mask<T, double>(const T*, Relation, T, double*, std::int64_t);                               \
    template void mse_loss<T>(const T*, const T*, T*, std::int64_t);                                                    \
    template void mse_loss_backward<T>(const T*, const T*, T*, std::int64_t);                                           \
    template void sgd_step<T>(T*, const T*, T, std::int64_t);
VITALS_CPU_INSTANTIATE(float)
VITALS_CPU_INSTANTIATE(double)
#undef VITALS_CPU_INSTANTIATE

}  // namespace vitals::kernels::cpu_backend
