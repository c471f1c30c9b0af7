// The elementwise math of the kernel set, as functors that compile for the host and the
// device. The CPU loops and the CUDA kernels call the same functors, so the CPU tests
// check the math the GPU runs. Internal header.
#pragma once

#include <cstdint>

#include "vitals/kernels/ops.hpp"

#if defined(__CUDACC__)
#define VITALS_HD __host__ __device__
#else
#define VITALS_HD
#endif

namespace vitals::kernels::elementwise {

struct Relu {
    template <class T>
    VITALS_HD T operator()(T x) const {
        return x > T(0) ? x : T(0);
    }
};

struct ReluBackward {
    template <class T>
    VITALS_HD T operator()(T grad, T input) const {
        return input > T(0) ? grad : T(0);
    }
};

// x OP scalar with the operator fixed at compile time (vectorisable loops).
template <CompareOp Op, class T>
struct CompareTo {
    T scalar;
    VITALS_HD bool operator()(T x) const {
        if constexpr (Op == CompareOp::gt) return x > scalar;
        if constexpr (Op == CompareOp::ge) return x >= scalar;
        if constexpr (Op == CompareOp::lt) return x < scalar;
        if constexpr (Op == CompareOp::le) return x <= scalar;
        if constexpr (Op == CompareOp::eq) return x == scalar;
        if constexpr (Op == CompareOp::ne) return x != scalar;
    }
};

// x OP scalar with the operator chosen at run time (uniform across a GPU launch).
template <class T>
struct Compare {
    CompareOp op;
    T scalar;
    VITALS_HD bool operator()(T x) const {
        switch (op) {
            case CompareOp::gt: return CompareTo<CompareOp::gt, T>{scalar}(x);
            case CompareOp::ge: return CompareTo<CompareOp::ge, T>{scalar}(x);
            case CompareOp::lt: return CompareTo<CompareOp::lt, T>{scalar}(x);
            case CompareOp::le: return CompareTo<CompareOp::le, T>{scalar}(x);
            case CompareOp::eq: return CompareTo<CompareOp::eq, T>{scalar}(x);
            case CompareOp::ne: return CompareTo<CompareOp::ne, T>{scalar}(x);
        }
        return false;
    }
};

template <class T>
struct SquaredError {
    VITALS_HD T operator()(T pred, T target) const {
        const T d = pred - target;
        return d * d;
    }
};

template <class T>
struct MseBackward {
    T scale;  // 2 / n
    VITALS_HD T operator()(T pred, T target) const { return scale * (pred - target); }
};

template <class T>
struct SgdStep {
    T lr;
    VITALS_HD T operator()(T param, T grad) const { return param - lr * grad; }
};

template <class T>
struct IsNonZero {
    VITALS_HD bool operator()(T x) const { return x != T(0); }
};

}  // namespace vitals::kernels::elementwise
