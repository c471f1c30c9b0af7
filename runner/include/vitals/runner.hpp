// The runner: the `vitals` commands (list, timeit, run, profile) over a registry of cases.
#pragma once

#include "vitals/case.hpp"

namespace vitals {

// Parses the command line and runs the command. Returns the process exit code: 0 on
// success, 2 for usage errors and bad input, 1 for runtime failures.
int run_main(int argc, char** argv, const Registry& registry = Registry::global());

}  // namespace vitals

// Gives a benchmark program the runner's commands over the cases it registered.
#define VITALS_MAIN() \
    int main(int argc, char** argv) { return ::vitals::run_main(argc, argv); }
