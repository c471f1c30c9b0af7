// The argument checks of the kernel-set operations. Each throws std::invalid_argument
// as "op: problem", naming the tensors (describe()). Internal header.
#pragma once

#include <cstdint>
#include <string>

#include "vitals/kernels/ops.hpp"

namespace vitals::kernels::checks {

[[noreturn]] void fail(const char* op, const std::string& problem);

void require_defined(const char* op, const Tensor& t, const char* name);
// Defined, and float or double.
void require_floating(const char* op, const Tensor& t, const char* name);
void require_dim(const char* op, const Tensor& t, std::int64_t dim, const char* name);
void require_same_dtype(const char* op, const Tensor& a, const Tensor& b);
void require_same_device(const char* op, const Tensor& a, const Tensor& b);
void require_same_shape(const char* op, const Tensor& a, const Tensor& b);
// Two float tensors an elementwise operation combines: same dtype, device and shape.
void require_matching_pair(const char* op, const Tensor& a, const Tensor& b, const char* name);

// The checks of each operation that needs more than one of the above.

struct ProductShape {
    std::int64_t m, n;
};
// Two float matrices on one device whose inner dimensions agree (after the transposes
// asked for); returns the product's shape.
ProductShape product(const char* op, const Tensor& a, const Tensor& b, bool transpose_a, bool transpose_b);
// product's checks, then a bias of shape [n] like a.
ProductShape addmm(const Tensor& bias, const Tensor& a, const Tensor& b, bool transpose_b);
void linear(const Tensor& x, const Tensor& weight);
void sum_rows(const Tensor& x);
// `op` is the relation's name ("gt", ...), under which the operation runs.
void relation_mask(const char* op, const Tensor& x, DType mask_dtype);
void masked_select(const Tensor& x, const Tensor& mask);
void sgd_step(const Tensor& param, const Tensor& grad, double lr);

}  // namespace vitals::kernels::checks
