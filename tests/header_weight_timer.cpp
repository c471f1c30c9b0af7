#include <vitals/timer.hpp>
