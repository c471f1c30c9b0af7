#include "checks.hpp"

#include <fmt/format.h>

#include <cmath>
#include <stdexcept>

namespace vitals::kernels::checks {

void fail(const char* op, const std::string& problem) {
    throw std::invalid_argument(fmt::format("{}: {}", op, problem));
}

void require_defined(const char* op, const Tensor& t, const char* name) {
    if (!t.defined()) fail(op, fmt::format("{} is an undefined tensor", name));
}

void require_floating(const char* op, const Tensor& t, const char* name) {
    require_defined(op, t, name);
    if (t.dtype() != DType::f32 && t.dtype() != DType::f64) {
        fail(op, fmt::format("{} must be float or double, got {}", name, describe(t)));
    }
}

void require_dim(const char* op, const Tensor& t, std::int64_t dim, const char* name) {
    if (t.dim() != dim) fail(op, fmt::format("{} must be {}-D, got {}", name, dim, describe(t)));
}

void require_same_dtype(const char* op, const Tensor& a, const Tensor& b) {
    if (a.dtype() != b.dtype()) {
        fail(op, fmt::format("dtypes differ: {} and {}; convert one so both match", describe(a), describe(b)));
    }
}

void require_same_device(const char* op, const Tensor& a, const Tensor& b) {
    if (a.device() != b.device()) {
        fail(op, fmt::format("tensors are on different devices: {} and {}; copy one with copy_to", describe(a), describe(b)));
    }
}

void require_same_shape(const char* op, const Tensor& a, const Tensor& b) {
    if (a.shape() != b.shape()) fail(op, fmt::format("shapes differ: {} and {}", describe(a), describe(b)));
}

void require_matching_pair(const char* op, const Tensor& a, const Tensor& b, const char* name) {
    require_floating(op, a, name);
    require_same_dtype(op, a, b);
    require_same_device(op, a, b);
    require_same_shape(op, a, b);
}

ProductShape product(const char* op, const Tensor& a, const Tensor& b, bool transpose_a, bool transpose_b) {
    require_floating(op, a, "the first matrix");
    require_floating(op, b, "the second matrix");
    require_dim(op, a, 2, "the first matrix");
    require_dim(op, b, 2, "the second matrix");
    require_same_dtype(op, a, b);
    require_same_device(op, a, b);
    const std::int64_t ka = transpose_a ? a.size(0) : a.size(1);
    const std::int64_t kb = transpose_b ? b.size(1) : b.size(0);
    if (ka != kb) {
        fail(op, fmt::format("inner dimensions differ: {}{} @ {}{} ({} vs {})", describe(a), transpose_a ? "^T" : "",
                             describe(b), transpose_b ? "^T" : "", ka, kb));
    }
    return {transpose_a ? a.size(1) : a.size(0), transpose_b ? b.size(0) : b.size(1)};
}

ProductShape addmm(const Tensor& bias, const Tensor& a, const Tensor& b, bool transpose_b) {
    const ProductShape s = product("addmm", a, b, false, transpose_b);
    require_floating("addmm", bias, "bias");
    require_same_dtype("addmm", bias, a);
    require_same_device("addmm", bias, a);
    if (bias.dim() != 1 || bias.size(0) != s.n) {
        fail("addmm", fmt::format("bias must have shape [{}] for a [{}, {}] product, got {}", s.n, s.m, s.n, describe(bias)));
    }
    return s;
}

void linear(const Tensor& x, const Tensor& weight) {
    require_dim("linear", weight, 2, "weight");
    require_dim("linear", x, 2, "input");
    if (x.size(1) != weight.size(1)) {
        fail("linear", fmt::format("input {} has {} features but weight {} expects {}", describe(x), x.size(1),
                                   describe(weight), weight.size(1)));
    }
}

void sum_rows(const Tensor& x) {
    require_floating("sum_rows", x, "input");
    require_dim("sum_rows", x, 2, "input");
}

void relation_mask(const char* op, const Tensor& x, DType mask_dtype) {
    require_floating(op, x, "input");
    if (mask_dtype == DType::i64) fail(op, "the mask dtype must be bool, float or double, not int64");
}

void masked_select(const Tensor& x, const Tensor& mask) {
    require_floating("masked_select", x, "input");
    require_defined("masked_select", mask, "mask");
    require_same_device("masked_select", x, mask);
    require_same_shape("masked_select", x, mask);
}

void sgd_step(const Tensor& param, const Tensor& grad, double lr) {
    require_matching_pair("sgd_step", param, grad, "parameter");
    if (!std::isfinite(lr)) fail("sgd_step", fmt::format("learning rate must be finite, got {}", lr));
}

}  // namespace vitals::kernels::checks
