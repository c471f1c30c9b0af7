// Numbers read from outside files (results, traces, schedules, cached figures) converted
// only when they fit: a float-to-integer conversion of a value out of range, NaN or
// infinity is undefined behaviour, so every such read goes through here and a caller
// turns nullopt into an error naming the file, the field and the value. Header-only, for
// any nlohmann::json-like value.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>

namespace vitals {

// The value as Int when it is a whole number in Int's range (an integer, or a float with
// no fraction); nullopt otherwise (fractions, NaN, infinities, strings, out of range).
template <class Int, class Json>
std::optional<Int> checked_integer(const Json& value) {
    static_assert(std::numeric_limits<Int>::is_integer);
    constexpr auto low = static_cast<long double>(std::numeric_limits<Int>::min());
    constexpr auto high = static_cast<long double>(std::numeric_limits<Int>::max());
    if (value.is_number_unsigned()) {
        const auto v = value.template get<std::uint64_t>();
        if (static_cast<long double>(v) > high) return std::nullopt;
        return static_cast<Int>(v);
    }
    if (value.is_number_integer()) {
        const auto v = value.template get<std::int64_t>();
        if (static_cast<long double>(v) < low || static_cast<long double>(v) > high) return std::nullopt;
        return static_cast<Int>(v);
    }
    if (value.is_number_float()) {
        const double v = value.template get<double>();
        if (!std::isfinite(v) || v != std::trunc(v)) return std::nullopt;
        if (static_cast<long double>(v) < low || static_cast<long double>(v) > high) return std::nullopt;
        return static_cast<Int>(v);
    }
    return std::nullopt;
}

// The value as a finite double; nullopt for NaN, infinities and non-numbers.
template <class Json>
std::optional<double> checked_finite(const Json& value) {
    if (!value.is_number()) return std::nullopt;
    const double v = value.template get<double>();
    if (!std::isfinite(v)) return std::nullopt;
    return v;
}

}  // namespace vitals
