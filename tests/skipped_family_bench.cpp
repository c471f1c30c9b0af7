// A case family that cannot run here at all: its factory throws SkipCase while listing
// its cases. The program must still start, list the other cases and say why. And a case
// that knows it cannot run here, which `list` marks.
#include <vitals/vitals.hpp>

VITALS_CASES(gpu_only_family) {
    throw vitals::SkipCase("no accelerator of the kind this family needs");
    return {};
}

// The same for a family over axes.
VITALS_CASE_FAMILY(gpu_only_axes) {
    throw vitals::SkipCase("no accelerator for the axes family either");
}

VITALS_CASE("plain/1") { return vitals::Timer({.stmt = [] {}, .label = "plain"}); }

// A name full of regex and CMake metacharacters: ctest's test of it (vitals_discover_cases)
// must select this case alone.
VITALS_CASE(R"(plain/a.b+c(1)[2]{3}|d^e$f?g*h\i;j"k)") { return vitals::Timer({.stmt = [] {}, .label = "plain"}); }
// Unbalanced brackets, which group the items of a CMake list: each is one test still.
VITALS_CASE("plain/open[1") { return vitals::Timer({.stmt = [] {}, .label = "plain"}); }
VITALS_CASE("plain/close]2") { return vitals::Timer({.stmt = [] {}, .label = "plain"}); }

// A case that says, without being made, that it cannot run here: `list` marks it, and
// `run` skips it on that word alone (its factory would make a Timer that runs).
VITALS_CASES(unusable_cases) {
    return {{.name = "needs_widget/1",
             .make_timer = [] { return vitals::Timer({.stmt = [] {}, .label = "widget"}); },
             .skip_reason = [] { return std::string("no widget here"); }}};
}

VITALS_MAIN()
