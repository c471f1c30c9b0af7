// Cases: named factories of Timers, registered for the runner's commands.
//
//   VITALS_CASE("matmul/128x128/cpu-f32") {
//       auto m = std::make_shared<Matrices>(128);          // state lives in the closure
//       return vitals::Timer({.stmt = [m] { m->z.noalias() = m->x * m->y; },
//                             .label = "x @ y", .sub_label = "128x128", .description = "eigen f32"});
//   }
//
// The factory runs only when the case is timed, so `vitals list` allocates nothing.
#pragma once

#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "vitals/timer.hpp"

namespace vitals {

struct Case {
    std::string name;                   // unique, no spaces: "op/shape/device-dtype"
    std::function<Timer()> make_timer;  // may throw SkipCase
};

// Thrown by a case's factory when the case cannot run here (no GPU, say): the runner
// lists it as skipped with the reason, never as failed.
class SkipCase : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

class Registry {
public:
    // The registry the VITALS_CASE / VITALS_CASES macros fill.
    static Registry& global();

    // Adds a case. A bad or duplicate name is recorded as a problem (reported by the
    // runner before any command runs), since registration happens before main.
    void add(Case c);
    const std::vector<Case>& cases() const { return cases_; }
    const std::vector<std::string>& problems() const { return problems_; }
    // nullptr when there is no case of that name.
    const Case* find(const std::string& name) const;

private:
    std::vector<Case> cases_;
    std::vector<std::string> problems_;
};

namespace detail {
struct CaseRegistrar {
    CaseRegistrar(const char* name, Timer (*factory)());
    explicit CaseRegistrar(std::vector<Case> (*factory)());
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
