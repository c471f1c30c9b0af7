// Registers a case whose name has a space: every command must refuse with exit 2.
#include <vitals/vitals.hpp>

VITALS_CASE("has a space") { return vitals::Timer({.stmt = [] {}}); }

VITALS_MAIN()
