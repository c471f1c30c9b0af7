#include <vitals/vitals.hpp>

#include <cmath>

VITALS_CASE("sqrt/scalar/cpu-f64") {
    return vitals::Timer({.stmt = VITALS_CODE(vitals::do_not_optimize(std::sqrt(2.0))),
                          .label = "sqrt", .sub_label = "scalar"});
}

VITALS_MAIN()
