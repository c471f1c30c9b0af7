// The kernel-set operations. Each one enters through its OpScope (the point the profiler
// hooks), checks its arguments (checks.hpp), allocates its result, and hands the work to
// the backend of its tensors' device: cpu_backend (scan/ for nonzero and masked_select)
// or cuda_backend, by element type.
#include "vitals/kernels/ops.hpp"

#include <type_traits>
#include <utility>

#include "checks.hpp"
#include "cpu_backend.hpp"
#include "cuda_backend.hpp"
#include "scan/scan.hpp"
#include "type_dispatch.hpp"
#include "vitals/kernels/cuda_context.hpp"
#include "vitals/kernels/op_hooks.hpp"

namespace vitals::kernels {
namespace {

// Calls the backend entry of `device` with the same arguments: cuda(args..., stream) on a
// GPU, on the current stream, cpu(args...) otherwise. The entries are the two backends'
// functions of one name (cpu_backend::relu<T> and cuda_backend::relu<T>).
template <class Cpu, class Cuda, class... Args>
void on_device(Device device, Cpu cpu, Cuda cuda, Args&&... args) {
    if (device == Device::cuda) {
        cuda(std::forward<Args>(args)..., current_stream());
    } else {
        cpu(std::forward<Args>(args)...);
    }
}

// c (+)= op(a) @ op(b) on c's device.
void gemm_into(Tensor& c, const Tensor& a, const Tensor& b, bool ta, bool tb, bool accumulate) {
    const std::int64_t m = c.size(0), n = c.size(1), k = ta ? a.size(0) : a.size(1);
    with_float_type(c.dtype(), [&](auto zero) {
        using T = decltype(zero);
        on_device(c.device(), cpu_backend::gemm<T>, cuda_backend::gemm<T>, ta, tb, m, n, k, a.data<T>(), b.data<T>(),
                  c.data<T>(), accumulate);
    });
}

// The name a relation mask runs (and is profiled) under.
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
        on_device(out.device(), cpu_backend::broadcast_rows<T>, cuda_backend::broadcast_rows<T>, bias.data<T>(),
                  out.data<T>(), s.m, s.n);
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
        on_device(x.device(), cpu_backend::sum_rows<T>, cuda_backend::sum_rows<T>, x.data<T>(), out.data<T>(), x.size(0),
                  x.size(1));
    });
    return out;
}

Tensor relu(const Tensor& x) {
    OpScope scope("relu", {&x});
    checks::require_floating("relu", x, "input");
    Tensor out = Tensor::empty(x.shape(), x.dtype(), x.device());
    with_float_type(x.dtype(), [&](auto zero) {
        using T = decltype(zero);
        on_device(x.device(), cpu_backend::relu<T>, cuda_backend::relu<T>, x.data<T>(), out.data<T>(), x.numel());
    });
    return out;
}

Tensor relu_backward(const Tensor& grad, const Tensor& input) {
    OpScope scope("relu_backward", {&grad, &input});
    checks::require_matching_pair("relu_backward", grad, input, "grad");
    Tensor out = Tensor::empty(grad.shape(), grad.dtype(), grad.device());
    with_float_type(grad.dtype(), [&](auto zero) {
        using T = decltype(zero);
        on_device(grad.device(), cpu_backend::relu_backward<T>, cuda_backend::relu_backward<T>, grad.data<T>(),
                  input.data<T>(), out.data<T>(), grad.numel());
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
                on_device(x.device(), cpu_backend::relation_mask<T, M>, cuda_backend::relation_mask<T, M>, x.data<T>(), op,
                          static_cast<T>(scalar), out.data<M>(), x.numel());
            }
        });
    });
    return out;
}

Tensor nonzero(const Tensor& x) {
    OpScope scope("nonzero", {&x});
    checks::require_defined("nonzero", x, "input");
    if (x.device() != Device::cuda) return scan::nonzero(x);
    const std::int64_t n = x.numel();
    // One row of coordinates per hit; a 0-D tensor, like torch's, gives rows of none.
    const std::int64_t dims = x.dim();
    // Flat indices first (capacity n), then coordinates for the hits.
    Tensor flat = Tensor::empty({n}, DType::i64, x.device());
    const std::int64_t count = cuda_backend::nonzero_flat(x.raw_data(), x.dtype(), n, flat.data<std::int64_t>(), current_stream());
    Tensor out = Tensor::empty({count, dims}, DType::i64, x.device());
    if (count > 0 && dims > 0) {
        cuda_backend::unravel(flat.data<std::int64_t>(), count, x.shape(), out.data<std::int64_t>(), current_stream());
    }
    return out;
}

Tensor masked_select(const Tensor& x, const Tensor& mask) {
    OpScope scope("masked_select", {&x, &mask});
    checks::masked_select(x, mask);
    if (x.device() != Device::cuda) return scan::masked_select(x, mask);
    const std::int64_t n = x.numel();
    return with_float_type(x.dtype(), [&](auto zero) {
        using T = decltype(zero);
        Tensor buffer = Tensor::empty({n}, x.dtype(), x.device());
        const std::int64_t count = cuda_backend::masked_select<T>(x.data<T>(), mask.raw_data(), mask.dtype(), n,
                                                                  buffer.data<T>(), current_stream());
        Tensor out = Tensor::empty({count}, x.dtype(), x.device());
        if (count > 0) {
            cuda_backend::copy(out.raw_data(), buffer.raw_data(), out.nbytes(), cuda_backend::CopyKind::device_to_device,
                               current_stream());
        }
        return out;
    });
}

Tensor mse_loss(const Tensor& pred, const Tensor& target) {
    OpScope scope("mse_loss", {&pred, &target});
    checks::require_matching_pair("mse_loss", pred, target, "prediction");
    Tensor out = Tensor::empty({}, pred.dtype(), pred.device());
    with_float_type(pred.dtype(), [&](auto zero) {
        using T = decltype(zero);
        const std::int64_t n = pred.numel();
        on_device(pred.device(), cpu_backend::mse_loss<T>, cuda_backend::mse_loss<T>, pred.data<T>(), target.data<T>(),
                  out.data<T>(), n);
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
        on_device(pred.device(), cpu_backend::mse_loss_backward<T>, cuda_backend::mse_loss_backward<T>, pred.data<T>(),
                  target.data<T>(), out.data<T>(), n);
    });
    return out;
}

void sgd_step(Tensor& param, const Tensor& grad, double lr) {
    OpScope scope("sgd_step", {&param, &grad});
    checks::sgd_step(param, grad, lr);
    with_float_type(param.dtype(), [&](auto zero) {
        using T = decltype(zero);
        on_device(param.device(), cpu_backend::sgd_step<T>, cuda_backend::sgd_step<T>, param.data<T>(), grad.data<T>(),
                  static_cast<T>(lr), param.numel());
    });
}

Tensor copy_to(const Tensor& x, Device device) {
    OpScope scope("copy_to", {&x});
    checks::require_defined("copy_to", x, "input");
    return x.to(device);
}

}  // namespace vitals::kernels
