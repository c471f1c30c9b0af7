// The kernel-set operations: the entry point the profiler hooks, the argument checks
// (checks.hpp), and the CPU implementations (Eigen for products, plain loops over the shared functors for
// elementwise work). CUDA tensors go to cuda_backend.
#include "vitals/kernels/ops.hpp"

#include <Eigen/Core>
#include <algorithm>
#include <cstring>
#include <limits>
#include <type_traits>
#include <utility>

#include "checks.hpp"
#include "cuda_backend.hpp"
#include "elementwise.hpp"
#include "nonzero_coordinates.hpp"
#include "nonzero_scan.hpp"
#include "vitals/kernels/cuda_context.hpp"
#include "vitals/kernels/op_hooks.hpp"

namespace vitals::kernels {
namespace {

template <class T>
using RowMatrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

template <class T>
Eigen::Map<RowMatrix<T>> matrix(Tensor& t) {
    return {t.data<T>(), t.size(0), t.size(1)};
}
template <class T>
Eigen::Map<const RowMatrix<T>> matrix(const Tensor& t) {
    return {t.data<T>(), t.size(0), t.size(1)};
}

// Calls f(T{}) with T the float type of `dtype`.
template <class F>
decltype(auto) with_float_type(DType dtype, F&& f) {
    if (dtype == DType::f32) return f(float{});
    return f(double{});
}

// Calls f(T{}) with T the C++ type of any dtype.
template <class F>
decltype(auto) with_any_type(DType dtype, F&& f) {
    switch (dtype) {
        case DType::f32: return f(float{});
        case DType::f64: return f(double{});
        case DType::boolean: return f(bool{});
        case DType::i64: break;
    }
    return f(std::int64_t{});
}

template <class C, class A, class B>
void assign_product(C&& c, const A& a, const B& b, bool accumulate) {
    if (accumulate) {
        c.noalias() += a * b;
    } else {
        c.noalias() = a * b;
    }
}

// c (+)= op(a) @ op(b) on c's device.
void gemm_into(Tensor& c, const Tensor& a, const Tensor& b, bool ta, bool tb, bool accumulate) {
    const std::int64_t m = c.size(0), n = c.size(1), k = ta ? a.size(0) : a.size(1);
    with_float_type(c.dtype(), [&](auto zero) {
        using T = decltype(zero);
        if (c.device() == Device::cuda) {
            cuda_backend::gemm<T>(ta, tb, m, n, k, a.data<T>(), b.data<T>(), c.data<T>(), accumulate, current_stream());
            return;
        }
        auto C = matrix<T>(c);
        const auto A = matrix<T>(a);
        const auto B = matrix<T>(b);
        if (!ta && !tb) assign_product(C, A, B, accumulate);
        if (!ta && tb) assign_product(C, A, B.transpose(), accumulate);
        if (ta && !tb) assign_product(C, A.transpose(), B, accumulate);
        if (ta && tb) assign_product(C, A.transpose(), B.transpose(), accumulate);
    });
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

// out[i] = f(x[i]) over a whole tensor, on the CPU.
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

const char* relation_name(Relation op) {
    switch (op) {
        case Relation::gt: return "gt";
        case Relation::ge: return "ge";
        case Relation::lt: return "lt";
        case Relation::le: return "le";
        case Relation::eq: return "eq";
        case Relation::ne: return "ne";
    }
    return "relation_mask";
}

}  // namespace

Tensor matmul(const Tensor& a, const Tensor& b, bool transpose_a, bool transpose_b) {
    OpScope scope("matmul", {&a, &b});
    const checks::ProductShape s = checks::product("matmul", a, b, transpose_a, transpose_b);
    Tensor out = Tensor::empty({s.m, s.n}, a.dtype(), a.device());
    gemm_into(out, a, b, transpose_a, transpose_b, false);
    return out;
}

Tensor addmm(const Tensor& bias, const Tensor& a, const Tensor& b, bool transpose_b) {
    OpScope scope("addmm", {&bias, &a, &b});
    const checks::ProductShape s = checks::addmm(bias, a, b, transpose_b);
    Tensor out = Tensor::empty({s.m, s.n}, a.dtype(), a.device());
    with_float_type(a.dtype(), [&](auto zero) {
        using T = decltype(zero);
        if (out.device() == Device::cuda) {
            cuda_backend::broadcast_rows<T>(bias.data<T>(), out.data<T>(), s.m, s.n, current_stream());
        } else {
            const Eigen::Map<const Eigen::Matrix<T, 1, Eigen::Dynamic>> row(bias.data<T>(), s.n);
            matrix<T>(out).rowwise() = row;
        }
    });
    gemm_into(out, a, b, false, transpose_b, true);
    return out;
}

Tensor linear(const Tensor& x, const Tensor& weight, const Tensor& bias) {
    OpScope scope("linear", {&x, &weight, &bias});
    checks::linear(x, weight);
    return addmm(bias, x, weight, /*transpose_b=*/true);
}

Tensor sum_rows(const Tensor& x) {
    OpScope scope("sum_rows", {&x});
    checks::sum_rows(x);
    Tensor out = Tensor::empty({x.size(1)}, x.dtype(), x.device());
    with_float_type(x.dtype(), [&](auto zero) {
        using T = decltype(zero);
        if (x.device() == Device::cuda) {
            cuda_backend::sum_rows<T>(x.data<T>(), out.data<T>(), x.size(0), x.size(1), current_stream());
            return;
        }
        Eigen::Map<Eigen::Matrix<T, 1, Eigen::Dynamic>>(out.data<T>(), x.size(1)) = matrix<T>(x).colwise().sum();
    });
    return out;
}

Tensor relu(const Tensor& x) {
    OpScope scope("relu", {&x});
    checks::require_floating("relu", x, "input");
    Tensor out = Tensor::empty(x.shape(), x.dtype(), x.device());
    with_float_type(x.dtype(), [&](auto zero) {
        using T = decltype(zero);
        if (x.device() == Device::cuda) {
            cuda_backend::relu<T>(x.data<T>(), out.data<T>(), x.numel(), current_stream());
        } else {
            cpu_map(x.data<T>(), out.data<T>(), x.numel(), elementwise::Relu{});
        }
    });
    return out;
}

Tensor relu_backward(const Tensor& grad, const Tensor& input) {
    OpScope scope("relu_backward", {&grad, &input});
    checks::require_matching_pair("relu_backward", grad, input, "grad");
    Tensor out = Tensor::empty(grad.shape(), grad.dtype(), grad.device());
    with_float_type(grad.dtype(), [&](auto zero) {
        using T = decltype(zero);
        if (grad.device() == Device::cuda) {
            cuda_backend::relu_backward<T>(grad.data<T>(), input.data<T>(), out.data<T>(), grad.numel(), current_stream());
        } else {
            cpu_map2(grad.data<T>(), input.data<T>(), out.data<T>(), grad.numel(), elementwise::ReluBackward{});
        }
    });
    return out;
}

Tensor relation_mask(const Tensor& x, Relation op, double scalar, DType mask_dtype) {
    const char* name = relation_name(op);
    OpScope scope(name, {&x});
    checks::relation_mask(name, x, mask_dtype);
    Tensor out = Tensor::empty(x.shape(), mask_dtype, x.device());
    with_float_type(x.dtype(), [&](auto zero) {
        using T = decltype(zero);
        with_any_type(mask_dtype, [&](auto mask_zero) {
            using M = decltype(mask_zero);
            if constexpr (!std::is_same_v<M, std::int64_t>) {
                if (x.device() == Device::cuda) {
                    cuda_backend::relation_mask<T, M>(x.data<T>(), op, static_cast<T>(scalar), out.data<M>(), x.numel(),
                                                      current_stream());
                } else {
                    with_relation(op, [&](auto op_constant) {
                        const elementwise::RelationTo<decltype(op_constant)::value, T> predicate{static_cast<T>(scalar)};
                        cpu_map(x.data<T>(), out.data<M>(), x.numel(), predicate);
                    });
                }
            }
        });
    });
    return out;
}

Tensor nonzero(const Tensor& x) {
    OpScope scope("nonzero", {&x});
    checks::require_defined("nonzero", x, "input");
    const std::int64_t n = x.numel();
    // One row of coordinates per hit; a 0-D tensor, like torch's, gives rows of none.
    const std::int64_t dims = x.dim();
    const Shape& shape = x.shape();
    if (x.device() == Device::cuda) {
        // Flat indices first (capacity n), then coordinates for the hits.
        Tensor flat = Tensor::empty({n}, DType::i64, x.device());
        const std::int64_t count =
            cuda_backend::nonzero_flat(x.raw_data(), x.dtype(), n, flat.data<std::int64_t>(), current_stream());
        Tensor out = Tensor::empty({count, dims}, DType::i64, x.device());
        if (count > 0 && dims > 0) {
            cuda_backend::unravel(flat.data<std::int64_t>(), count, shape, out.data<std::int64_t>(), current_stream());
        }
        return out;
    }
    // CPU: find the hits, allocate exactly, then write them: widened straight into the
    // result for one dimension, unravelled for more.
    return with_any_type(x.dtype(), [&](auto zero) {
        using T = decltype(zero);
        const nonzero_scan::StagedHits hits(x.data<T>(), n);
        Tensor out = Tensor::empty({hits.count(), dims}, DType::i64, Device::cpu);
        std::int64_t* cursor = out.data<std::int64_t>();
        if (dims == 1) {
            hits.write_indices(cursor);
        } else if (dims > 1) {
            nonzero_scan::write_coordinates(hits, shape, cursor);
        }
        return out;
    });
}

Tensor masked_select(const Tensor& x, const Tensor& mask) {
    OpScope scope("masked_select", {&x, &mask});
    checks::masked_select(x, mask);
    const std::int64_t n = x.numel();
    return with_float_type(x.dtype(), [&](auto zero) {
        using T = decltype(zero);
        if (x.device() == Device::cuda) {
            Tensor buffer = Tensor::empty({n}, x.dtype(), x.device());
            const std::int64_t count = cuda_backend::masked_select<T>(x.data<T>(), mask.raw_data(), mask.dtype(), n,
                                                                      buffer.data<T>(), current_stream());
            Tensor out = Tensor::empty({count}, x.dtype(), x.device());
            if (count > 0) {
                cuda_backend::copy(out.raw_data(), buffer.raw_data(), out.nbytes(),
                                   cuda_backend::CopyKind::device_to_device, current_stream());
            }
            return out;
        }
        return with_any_type(mask.dtype(), [&](auto mask_zero) {
            using M = decltype(mask_zero);
            const nonzero_scan::StagedHits hits(mask.data<M>(), n);
            Tensor out = Tensor::empty({hits.count()}, x.dtype(), Device::cpu);
            const T* values = x.data<T>();
            T* cursor = out.data<T>();
            // Hits common enough: a compress of the values, whose cost follows the elements,
            // beats a gather at the staged positions, whose cost follows the hits
            // (measured crossover on Zen 4, 1M floats: 20-25% hits).
            constexpr std::int64_t kDenseSelect = 4;
            if (nonzero_scan::avx512_vbmi2_supported() && hits.count() * kDenseSelect >= n) {
                nonzero_scan::compress_values(mask.data<M>(), values, n, cursor, hits.count());
                return out;
            }
            hits.for_each_block([&](std::int64_t start, const std::uint16_t* positions, std::int64_t count) {
                const T* block = values + start;
                for (std::int64_t i = 0; i < count; ++i) cursor[i] = block[positions[i]];
                cursor += count;
            });
            return out;
        });
    });
}

Tensor mse_loss(const Tensor& pred, const Tensor& target) {
    OpScope scope("mse_loss", {&pred, &target});
    checks::require_matching_pair("mse_loss", pred, target, "prediction");
    Tensor out = Tensor::empty({}, pred.dtype(), pred.device());
    with_float_type(pred.dtype(), [&](auto zero) {
        using T = decltype(zero);
        const std::int64_t n = pred.numel();
        if (pred.device() == Device::cuda) {
            cuda_backend::mse_loss<T>(pred.data<T>(), target.data<T>(), out.data<T>(), n, current_stream());
            return;
        }
        const T* p = pred.data<T>();
        const T* t = target.data<T>();
        const elementwise::SquaredError<T> squared;
        double sum = 0.0;  // double accumulation: a float sum of many terms drifts
        for (std::int64_t i = 0; i < n; ++i) sum += squared(p[i], t[i]);
        *out.data<T>() = n == 0 ? std::numeric_limits<T>::quiet_NaN() : static_cast<T>(sum / static_cast<double>(n));
    });
    return out;
}

Tensor mse_loss_backward(const Tensor& pred, const Tensor& target) {
    OpScope scope("mse_loss_backward", {&pred, &target});
    checks::require_matching_pair("mse_loss_backward", pred, target, "prediction");
    Tensor out = Tensor::empty(pred.shape(), pred.dtype(), pred.device());
    with_float_type(pred.dtype(), [&](auto zero) {
        using T = decltype(zero);
        const std::int64_t n = pred.numel();
        if (pred.device() == Device::cuda) {
            cuda_backend::mse_loss_backward<T>(pred.data<T>(), target.data<T>(), out.data<T>(), n, current_stream());
        } else {
            const elementwise::MseBackward<T> grad{static_cast<T>(2.0 / static_cast<double>(n))};
            cpu_map2(pred.data<T>(), target.data<T>(), out.data<T>(), n, grad);
        }
    });
    return out;
}

void sgd_step(Tensor& param, const Tensor& grad, double lr) {
    OpScope scope("sgd_step", {&param, &grad});
    checks::sgd_step(param, grad, lr);
    with_float_type(param.dtype(), [&](auto zero) {
        using T = decltype(zero);
        if (param.device() == Device::cuda) {
            cuda_backend::sgd_step<T>(param.data<T>(), grad.data<T>(), static_cast<T>(lr), param.numel(), current_stream());
        } else {
            T* p = param.data<T>();
            cpu_map2(p, grad.data<T>(), p, param.numel(), elementwise::SgdStep<T>{static_cast<T>(lr)});
        }
    });
}

Tensor copy_to(const Tensor& x, Device device) {
    OpScope scope("copy_to", {&x});
    checks::require_defined("copy_to", x, "input");
    return x.to(device);
}

}  // namespace vitals::kernels
