// Calls a generic lambda with a value of the C++ type a DType stands for, so that one body
// serves every element type. Internal to the kernel set.
#pragma once

#include <cstdint>
#include <utility>

#include "vitals/kernels/tensor.hpp"

namespace vitals::kernels {

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

}  // namespace vitals::kernels
