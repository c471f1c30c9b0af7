#include <vitals/vitals.hpp>

#include <cmath>
#include <iostream>

VITALS_CASE("consumer/sqrt") {
    return vitals::Timer({.stmt = VITALS_CODE(vitals::do_not_optimize(std::sqrt(3.0))), .label = "consumer"});
}

int main(int argc, char** argv) {
    vitals::Timer timer({.stmt = [] { vitals::do_not_optimize(std::sqrt(2.0)); }, .label = "sqrt"});
    std::cout << timer.timeit(1000) << '\n';
    return vitals::run_main(argc, argv);
}
