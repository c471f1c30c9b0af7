// A benchmark program of the consumer's own: vitals_discover_cases makes each of its
// cases a ctest test (one that runs, one that cannot run here).
#include <vitals/vitals.hpp>

#include <cmath>

VITALS_CASE("consumer_cases/sqrt") {
    return vitals::Timer({.stmt = VITALS_CODE(vitals::do_not_optimize(std::sqrt(5.0))), .label = "consumer"});
}

VITALS_CASE("consumer_cases/elsewhere") { throw vitals::SkipCase("needs another machine"); }

VITALS_MAIN()
