// The `vitals` executable: the runner's commands over the built-in cases.
#include "vitals/runner.hpp"

VITALS_MAIN()
