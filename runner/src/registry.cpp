#include <fmt/format.h>

#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <limits>

#include "vitals/case.hpp"

namespace vitals {

Registry& Registry::global() {
    static Registry registry;
    return registry;
}

void Registry::add(Case c) {
    if (c.name.empty()) {
        problems_.push_back("a case was registered with an empty name");
        return;
    }
    if (std::any_of(c.name.begin(), c.name.end(), [](unsigned char ch) { return std::isspace(ch) != 0; })) {
        problems_.push_back(fmt::format("case name '{}' contains white space; use names like 'matmul/128x128/cpu-f32'", c.name));
        return;
    }
    // Control characters would reach terminals, ctest's lists and CI logs as they are.
    if (std::any_of(c.name.begin(), c.name.end(), [](unsigned char ch) { return ch < 0x20 || ch == 0x7f; })) {
        problems_.push_back(fmt::format("case name '{}' contains a control character; use names like 'matmul/128x128/cpu-f32'",
                                        c.name));
        return;
    }
    if (!c.make_timer) {
        problems_.push_back(fmt::format("case '{}' has no timer factory", c.name));
        return;
    }
    if (find(c.name) != nullptr) {
        problems_.push_back(fmt::format("case '{}' is registered twice; case names must be unique", c.name));
        return;
    }
    cases_.push_back(std::move(c));
}

const std::string& AxisValues::operator[](std::string_view axis) const {
    for (const auto& [name, value] : values_) {
        if (name == axis) return value;
    }
    throw std::out_of_range(fmt::format("this case has no axis '{}'", axis));
}

std::optional<std::int64_t> parse_axis_integer(std::string_view text) {
    if (text.empty()) return std::nullopt;
    std::int64_t scale = 1;
    switch (text.back()) {
        case 'K': scale = std::int64_t{1} << 10; break;
        case 'M': scale = std::int64_t{1} << 20; break;
        case 'G': scale = std::int64_t{1} << 30; break;
        default: break;
    }
    if (scale != 1) text.remove_suffix(1);
    std::int64_t value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc() || end != text.data() + text.size() || value < 0 || text.front() == '+' ||
        value > std::numeric_limits<std::int64_t>::max() / scale) {
        return std::nullopt;
    }
    return value * scale;
}

std::int64_t AxisValues::integer(std::string_view axis) const {
    const std::string& text = (*this)[axis];
    const std::optional<std::int64_t> value = parse_axis_integer(text);
    if (!value) throw std::invalid_argument(fmt::format("axis '{}' has the value '{}', which is no whole number", axis, text));
    return *value;
}

void Registry::add(CaseFamily family) {
    if (family.name.empty() || !family.make_timer) {
        problems_.push_back(fmt::format("case family '{}' has no name or no timer factory", family.name));
        return;
    }
    for (std::size_t a = 0; a < family.axes.size(); ++a) {
        if (family.axes[a].values.empty()) {
            problems_.push_back(fmt::format("axis '{}' of case family '{}' has no values", family.axes[a].name, family.name));
            return;
        }
        for (std::size_t b = 0; b < a; ++b) {
            if (family.axes[a].name == family.axes[b].name) {
                problems_.push_back(fmt::format("case family '{}' has two axes named '{}'", family.name, family.axes[a].name));
                return;
            }
        }
    }
    families_.push_back(std::move(family));
    expand(families_.size() - 1, families_.back().axes);
}

void Registry::expand(std::size_t index, const std::vector<Axis>& axes) {
    const CaseFamily& family = families_[index];
    std::vector<std::size_t> at(axes.size(), 0);  // an odometer over the axes, the last fastest
    for (;;) {
        std::vector<std::pair<std::string, std::string>> values;
        for (std::size_t a = 0; a < axes.size(); ++a) values.emplace_back(axes[a].name, axes[a].values[at[a]]);
        AxisValues point(std::move(values));
        std::string name = family.name;
        if (family.name_of) {
            name = family.name_of(point);
        } else {
            for (const auto& [axis, value] : point.all()) name += "/" + axis + "=" + value;
        }
        auto make = family.make_timer;
        std::function<std::string()> skip_reason;
        if (auto reason = family.skip_reason) skip_reason = [reason, point] { return reason(point); };
        add(Case{std::move(name), [make, point] { return make(point); }, family.name, point, std::move(skip_reason)});
        std::size_t a = axes.size();
        while (a > 0 && ++at[a - 1] == axes[a - 1].values.size()) at[--a] = 0;
        if (a == 0) break;
    }
}

Registry Registry::with_axes(const std::vector<Axis>& overrides) const {
    for (const Axis& o : overrides) {
        bool known = false;
        for (const CaseFamily& f : families_) {
            for (const Axis& a : f.axes) {
                if (a.name != o.name) continue;
                known = true;
                // A numeric axis (every value a whole number) takes whole numbers only.
                const bool numeric = std::all_of(a.values.begin(), a.values.end(),
                                                 [](const std::string& v) { return parse_axis_integer(v).has_value(); });
                for (const std::string& v : o.values) {
                    if (numeric && !parse_axis_integer(v)) {
                        throw std::invalid_argument(fmt::format("axis '{}' of '{}' takes whole numbers (like 256 or 4M), not '{}'",
                                                                o.name, f.name, v));
                    }
                }
            }
        }
        if (!known) {
            std::vector<std::string> names;
            for (const CaseFamily& f : families_) {
                for (const Axis& a : f.axes) names.push_back(fmt::format("{} ({})", a.name, f.name));
            }
            throw std::invalid_argument(fmt::format("no case family has an axis '{}'; the axes are: {}", o.name,
                                                    names.empty() ? std::string("none") : fmt::format("{}", fmt::join(names, ", "))));
        }
        if (o.values.empty()) throw std::invalid_argument(fmt::format("--axis {} has no values", o.name));
    }
    Registry out;
    out.families_ = families_;
    std::vector<bool> expanded(families_.size(), false);
    for (const Case& c : cases_) {
        if (c.family.empty()) {
            out.add(c);
            continue;
        }
        const auto found = std::find_if(families_.begin(), families_.end(), [&](const CaseFamily& f) { return f.name == c.family; });
        const auto index = static_cast<std::size_t>(found - families_.begin());
        if (expanded[index]) continue;
        expanded[index] = true;
        std::vector<Axis> axes = families_[index].axes;
        for (Axis& a : axes) {
            for (const Axis& o : overrides) {
                if (o.name == a.name) a.values = o.values;
            }
        }
        out.families_[index].axes = axes;
        out.expand(index, axes);
    }
    out.problems_.insert(out.problems_.end(), problems_.begin(), problems_.end());
    out.skipped_families_ = skipped_families_;
    return out;
}

const Case* Registry::find(const std::string& name) const {
    for (const Case& c : cases_) {
        if (c.name == name) return &c;
    }
    return nullptr;
}

namespace detail {

CaseRegistrar::CaseRegistrar(const char* name, Timer (*factory)()) {
    Registry::global().add(Case{name, factory});
}

// A factory that throws during registration (before main) must not abort the program:
// its error becomes a problem the runner reports.
CaseRegistrar::CaseRegistrar(std::vector<Case> (*factory)()) {
    try {
        for (Case& c : factory()) Registry::global().add(std::move(c));
    } catch (const SkipCase& e) {  // the whole family cannot run here
        Registry::global().add_skipped_family(e.what());
    } catch (const std::exception& e) {
        Registry::global().add_problem(fmt::format("a VITALS_CASES factory threw while listing its cases: {}; throw "
                                                   "SkipCase from a case's own factory instead",
                                                   e.what()));
    }
}

CaseRegistrar::CaseRegistrar(CaseFamily (*factory)()) {
    try {
        Registry::global().add(factory());
    } catch (const SkipCase& e) {  // the whole family cannot run here, as for VITALS_CASES
        Registry::global().add_skipped_family(e.what());
    } catch (const std::exception& e) {
        Registry::global().add_problem(fmt::format("a VITALS_CASE_FAMILY factory threw: {}", e.what()));
    }
}

}  // namespace detail
}  // namespace vitals
