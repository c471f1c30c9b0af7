// A case whose Timer names its own counters: the runner reads those unless --counters
// says otherwise.
#include <vitals/vitals.hpp>

#include <cmath>

VITALS_CASE("counted/sqrt") {
    return vitals::Timer({.stmt = VITALS_CODE(vitals::do_not_optimize(std::sqrt(2.0))), .counters = {"page-faults"}});
}

VITALS_CASE("plain/sqrt") {
    return vitals::Timer({.stmt = VITALS_CODE(vitals::do_not_optimize(std::sqrt(3.0)))});
}

VITALS_MAIN()
