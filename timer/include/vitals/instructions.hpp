// Instruction counts where hardware counters are unavailable: the program runs itself
// again under Valgrind's Callgrind, and Timer::collect_instructions in that run switches
// collection on for exactly the counted calls.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace vitals {

// True in the run that count_under_callgrind started (its environment says so).
bool is_callgrind_child();

// Runs `command` (argv; command[0] is the program) under Callgrind with collection off
// at the start, and returns the instructions it collected divided by `number`. The
// command must call Timer::collect_instructions({.number = number}) once when
// is_callgrind_child(). No shell is involved: arguments are passed as they are.
// Throws std::runtime_error when Valgrind is missing or the run fails.
double count_under_callgrind(const std::vector<std::string>& command, std::int64_t number);

}  // namespace vitals
