// The members of one entry (or any object) of a results file, read with the checks and
// the error words every reader uses. Internal to the results part.
#pragma once

#include <fmt/format.h>
#include <simdjson.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "results_document.hpp"
#include "vitals/results.hpp"

namespace vitals {

using simdjson::dom::element;
using simdjson::dom::element_type;

inline double seconds_per_unit(std::string_view unit, const std::string& path) {
    if (unit == "ns") return 1e-9;
    if (unit == "us") return 1e-6;
    if (unit == "ms") return 1e-3;
    if (unit == "s") return 1.0;
    throw ResultsFileError(fmt::format("'{}' uses an unknown time_unit '{}' (expected ns, us, ms or s)", path, unit));
}

inline bool is_number(simdjson::dom::element e) {
    const element_type t = e.type();
    return t == element_type::INT64 || t == element_type::UINT64 || t == element_type::DOUBLE;
}

// The value as Int when it is a whole number in Int's range (an integer, or a float with no
// fraction); nullopt otherwise.
template <class Int>
std::optional<Int> whole_number(element e) {
    constexpr auto low = static_cast<long double>(std::numeric_limits<Int>::min());
    constexpr auto high = static_cast<long double>(std::numeric_limits<Int>::max());
    long double v = 0;
    switch (e.type()) {
        case element_type::UINT64: v = static_cast<long double>(std::uint64_t(e)); break;
        case element_type::INT64: v = static_cast<long double>(std::int64_t(e)); break;
        case element_type::DOUBLE: {
            const double d = double(e);
            if (!std::isfinite(d) || d != std::trunc(d)) return std::nullopt;
            v = d;
            break;
        }
        default: return std::nullopt;
    }
    if (v < low || v > high) return std::nullopt;
    return static_cast<Int>(v);
}

// The members of one object of a results file that the readers use, found in one pass
// (a later duplicate wins, as in a whole-document parser); `where` names it in errors.
class Fields {
public:
    // `owner` ("case 'a'") and `prefix` ("vitals_work.") name a member in errors:
    // "case 'a': vitals_work.bytes is -5; expected ...".
    Fields(element object, const std::string& path, std::string owner, std::string prefix = "")
        : path_(path), owner_(std::move(owner)), prefix_(std::move(prefix)) {
        if (object.type() != element_type::OBJECT) {
            throw_wrong_type(path_, prefix_.empty() ? owner_ : where(prefix_.substr(0, prefix_.size() - 1)), "an object", object);
        }
        for (const auto [key, value] : simdjson::dom::object(object)) members_.emplace_back(key, value);
    }

    std::optional<element> get(std::string_view key) const {
        const auto found = std::find_if(members_.rbegin(), members_.rend(), [&](const auto& m) { return m.first == key; });
        return found == members_.rend() ? std::nullopt : std::optional<element>(found->second);
    }
    bool has(std::string_view key) const { return get(key).has_value(); }

    std::string_view text(std::string_view key, std::string_view fallback = "") const {
        const std::optional<element> e = get(key);
        if (!e) return fallback;
        if (e->type() != element_type::STRING) throw_wrong_type(path_, where(key), "a string", *e);
        return std::string_view(*e);
    }
    bool flag(std::string_view key) const {
        const std::optional<element> e = get(key);
        if (!e) return false;
        if (e->type() != element_type::BOOL) throw_wrong_type(path_, where(key), "true or false", *e);
        return bool(*e);
    }
    // A number from an outside file: finite and >= 0 (absent: `fallback`, or an error).
    double non_negative(std::string_view key, std::optional<double> fallback = std::nullopt) const {
        const std::optional<element> e = get(key);
        if (!e && fallback) return *fallback;
        if (!e || !is_number(*e) || !std::isfinite(double(*e)) || double(*e) < 0) {
            if (!e) throw ResultsFileError(fmt::format("'{}': {} is missing; expected a finite number >= 0", path_, where(key)));
            throw_wrong_type(path_, where(key), "a finite number >= 0", *e);
        }
        return double(*e);
    }
    std::optional<double> optional_number(std::string_view key) const {
        const std::optional<element> e = get(key);
        return e && is_number(*e) ? std::optional<double>(double(*e)) : std::nullopt;
    }
    std::string where(std::string_view key) const { return fmt::format("{}: {}{}", owner_, prefix_, key); }
    void name_owner(std::string owner) { owner_ = std::move(owner); }

private:
    // Some twenty members: a search from the back is quicker than any map's upkeep.
    std::vector<std::pair<std::string_view, element>> members_;
    const std::string& path_;
    std::string owner_, prefix_;
};

// The case an entry belongs to: its run_name, else its name (a non-empty string).
inline std::string_view entry_name(const Fields& f, const std::string& path, std::size_t index) {
    const std::optional<element> name = f.has("run_name") ? f.get("run_name") : f.get("name");
    if (!name || name->type() != element_type::STRING) {
        throw ResultsFileError(fmt::format("'{}': benchmark entry {} has no name (a string); expected Google Benchmark's "
                                           "layout, as --json and --benchmark_out write it",
                                           path, index));
    }
    if (std::string_view(*name).empty()) throw ResultsFileError(fmt::format("'{}': a benchmark entry has an empty name", path));
    return std::string_view(*name);
}

}  // namespace vitals
