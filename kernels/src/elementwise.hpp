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
template <Relation Op, class T>
struct RelationTo {
    T scalar;
    VITALS_HD bool operator()(T x) const {
        if constexpr (Op == Relation::gt) return x > scalar;
        if constexpr (Op == Relation::ge) return x >= scalar;
        if constexpr (Op == Relation::lt) return x < scalar;
        if constexpr (Op == Relation::le) return x <= scalar;
        if constexpr (Op == Relation::eq) return x == scalar;
        if constexpr (Op == Relation::ne) return x != scalar;
    }
};

// x OP scalar with the operator chosen at run time (uniform across a GPU launch).
template <class T>
struct RelationOp {
    Relation op;
    T scalar;
    VITALS_HD bool operator()(T x) const {
        switch (op) {
            case Relation::gt: return RelationTo<Relation::gt, T>{scalar}(x);
            case Relation::ge: return RelationTo<Relation::ge, T>{scalar}(x);
            case Relation::lt: return RelationTo<Relation::lt, T>{scalar}(x);
            case Relation::le: return RelationTo<Relation::le, T>{scalar}(x);
            case Relation::eq: return RelationTo<Relation::eq, T>{scalar}(x);
            case Relation::ne: return RelationTo<Relation::ne, T>{scalar}(x);
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
