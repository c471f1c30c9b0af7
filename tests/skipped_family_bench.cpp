// A case family that cannot run here at all: its factory throws SkipCase while listing
// its cases. The program must still start, list the other cases and say why.
#include <vitals/vitals.hpp>

VITALS_CASES(gpu_only_family) {
    throw vitals::SkipCase("no accelerator of the kind this family needs");
    return {};
}

VITALS_CASE("plain/1") { return vitals::Timer({.stmt = [] {}, .label = "plain"}); }

VITALS_MAIN()
