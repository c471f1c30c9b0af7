// Cases: named factories of Timers, registered for the runner's commands.
//
//   VITALS_CASE("matmul/128x128/cpu-f32") {
//       auto m = std::make_shared<Matrices>(128);          // state lives in the closure
//       return vitals::Timer({.stmt = [m] { m->z.noalias() = m->x * m->y; },
//                             .label = "x @ y", .sub_label = "128x128", .description = "eigen f32"});
//   }
//
// The factory runs only when the case is timed, so `vitals list` allocates nothing.
//
// A family of cases over axes (as NVBench's), one case per combination of values:
//
//   VITALS_CASE_FAMILY(matmul_family) {
//       return {.name = "matmul",
//               .axes = {{"n", {"128", "512", "1024"}}, {"dtype", {"f32", "f64"}}},
//               .make_timer = [](const vitals::AxisValues& at) { ... at.integer("n") ... },
//               .name_of = [](const vitals::AxisValues& at) { ... }};  // optional
//   }
//
// `vitals run --axis n=256,2048` replaces an axis's values; a numeric axis with several
// values gets its cost's growth fitted (O(n), O(n^3), ...) after the run.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "vitals/timer.hpp"

namespace vitals {

// One axis of a family: its name and its values, as text ("128", "1M", "f32").
struct Axis {
    std::string name;
    std::vector<std::string> values;
};

// One case's values on its family's axes.
class AxisValues {
public:
    AxisValues() = default;
    explicit AxisValues(std::vector<std::pair<std::string, std::string>> values) : values_(std::move(values)) {}
    // The value on `axis` as text; std::out_of_range naming the axis when there is none.
    const std::string& operator[](std::string_view axis) const;
    // The value as a whole number: decimal, with an optional binary K, M or G suffix
    // ("1M" is 1048576); std::invalid_argument for anything else.
    std::int64_t integer(std::string_view axis) const;
    const std::vector<std::pair<std::string, std::string>>& all() const { return values_; }

private:
    std::vector<std::pair<std::string, std::string>> values_;
};

// "1M" -> 1048576, "256" -> 256; nullopt for text that is no whole number >= 0.
std::optional<std::int64_t> parse_axis_integer(std::string_view text);

// Thrown by a case's factory when the case cannot run here (no GPU, say): the runner
// lists it as skipped with the reason, never as failed.
class SkipCase : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

struct Case {
    std::string name;                   // unique, no spaces: "op/shape/device-dtype"
    std::function<Timer()> make_timer;  // may throw SkipCase
    std::string family;                 // the family it was made from, if any
    AxisValues axes;                    // its values on the family's axes
    // Why the case cannot run here ("" when it can), asked without making its Timer, so
    // that `vitals list` marks it: a CUDA case on a machine without a usable GPU, say.
    std::function<std::string()> skip_reason{};

    // The case's Timer, as every command makes it: SkipCase with skip_reason()'s answer
    // when that says the case cannot run here, else make_timer().
    Timer timer() const {
        if (skip_reason) {
            if (std::string why = skip_reason(); !why.empty()) throw SkipCase(why);
        }
        return make_timer();
    }
};

struct CaseFamily {
    std::string name;                                          // "matmul"
    std::vector<Axis> axes;                                    // every combination is a case
    std::function<Timer(const AxisValues&)> make_timer;        // may throw SkipCase
    // The case's name; default "<family>/<axis>=<value>/...".
    std::function<std::string(const AxisValues&)> name_of{};
    // Why a case cannot run here ("" when it can), as Case::skip_reason.
    std::function<std::string(const AxisValues&)> skip_reason{};
};

class Registry {
public:
    // The registry the VITALS_CASE / VITALS_CASES macros fill.
    static Registry& global();

    // Adds a case. A bad or duplicate name is recorded as a problem (reported by the
    // runner before any command runs), since registration happens before main.
    void add(Case c);
    // Adds a family: one case per combination of its axes' values, in order (the first
    // axis varies slowest). An axis without values, or two axes of one name, is a problem.
    void add(CaseFamily family);
    const std::vector<Case>& cases() const { return cases_; }
    const std::vector<CaseFamily>& families() const { return families_; }
    const std::vector<std::string>& problems() const { return problems_; }
    // Records a problem found while registering, for the runner to report.
    void add_problem(std::string problem) { problems_.push_back(std::move(problem)); }
    // Families whose factory threw SkipCase while listing its cases: why, for the runner
    // to show among the skipped cases (their cases cannot be named).
    void add_skipped_family(std::string why) { skipped_families_.push_back(std::move(why)); }
    const std::vector<std::string>& skipped_families() const { return skipped_families_; }
    // nullptr when there is no case of that name.
    const Case* find(const std::string& name) const;

    // The same cases with these axes' values replaced in every family that has such an
    // axis (as `run --axis n=256,2048`). std::invalid_argument naming an axis no family
    // has (and the axes there are), or a value a numeric axis cannot take.
    Registry with_axes(const std::vector<Axis>& overrides) const;

private:
    void expand(std::size_t family, const std::vector<Axis>& axes);

    std::vector<Case> cases_;
    std::vector<CaseFamily> families_;
    std::vector<std::string> problems_;
    std::vector<std::string> skipped_families_;
};

namespace detail {
struct CaseRegistrar {
    CaseRegistrar(const char* name, Timer (*factory)());
    explicit CaseRegistrar(std::vector<Case> (*factory)());
    explicit CaseRegistrar(CaseFamily (*factory)());
};
}  // namespace detail

}  // namespace vitals

#define VITALS_DETAIL_CONCAT2(a, b) a##b
#define VITALS_DETAIL_CONCAT(a, b) VITALS_DETAIL_CONCAT2(a, b)

// Registers one case: the braced body that follows is a function returning a Timer.
#define VITALS_CASE(case_name)                                                                   \
    static ::vitals::Timer VITALS_DETAIL_CONCAT(vitals_case_factory_, __LINE__)();               \
    static const ::vitals::detail::CaseRegistrar VITALS_DETAIL_CONCAT(vitals_case_registrar_,    \
                                                                      __LINE__)(                 \
        case_name, &VITALS_DETAIL_CONCAT(vitals_case_factory_, __LINE__));                       \
    static ::vitals::Timer VITALS_DETAIL_CONCAT(vitals_case_factory_, __LINE__)()

// Registers a family of cases: `function` returns std::vector<vitals::Case>.
#define VITALS_CASES(function)                                                                   \
    static std::vector<::vitals::Case> function();                                               \
    static const ::vitals::detail::CaseRegistrar VITALS_DETAIL_CONCAT(vitals_cases_registrar_,   \
                                                                      __LINE__)(&function);      \
    static std::vector<::vitals::Case> function()

// Registers a family of cases over axes: `function` returns a vitals::CaseFamily.
#define VITALS_CASE_FAMILY(function)                                                             \
    static ::vitals::CaseFamily function();                                                      \
    static const ::vitals::detail::CaseRegistrar VITALS_DETAIL_CONCAT(vitals_family_registrar_,  \
                                                                      __LINE__)(&function);      \
    static ::vitals::CaseFamily function()
