// A benchmark program as a user writes one (VITALS_CASE / VITALS_CASES + VITALS_MAIN),
// with cases that pass, skip and fail, for the runner tests.
#include <vitals/vitals.hpp>

#include <cmath>
#include <stdexcept>

VITALS_CASE("fixture/sqrt") {
    return vitals::Timer({.stmt = VITALS_CODE(vitals::do_not_optimize(std::sqrt(2.0))), .label = "fixture",
                          .sub_label = "sqrt"});
}

VITALS_CASE("fixture/throws") {
    return vitals::Timer({.stmt = [] { throw std::runtime_error("the statement broke"); }, .label = "fixture"});
}

VITALS_CASE("fixture/needs-gpu") {
    throw vitals::SkipCase("no CUDA device found");
}

VITALS_CASES(family) {
    std::vector<vitals::Case> cases;
    for (int n : {1, 2}) {
        cases.push_back({"fixture/family/" + std::to_string(n), [n] {
                             return vitals::Timer({.stmt = [n] { vitals::do_not_optimize(n * 2); },
                                                   .label = "fixture",
                                                   .sub_label = "family " + std::to_string(n)});
                         }});
    }
    return cases;
}

VITALS_MAIN()
