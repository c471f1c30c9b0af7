// Google Benchmark's command-line habits, for users who bring them: a VITALS_MAIN program
// (or `vitals`) started with --benchmark_* flags runs as `run` with their vitals
// equivalents, and a flag with none is refused with what to use instead.
#pragma once

#include <string>
#include <vector>

namespace vitals::cli {

// The arguments (argv[0] included) with every --benchmark_* flag translated, and `run`
// put first when the first argument is such a flag (`--benchmark_list_tests` becomes
// `list`). Arguments without such flags come back unchanged. Throws UsageError for a
// Google Benchmark flag that vitals has no equivalent of, or a value it cannot take.
std::vector<std::string> translate_google_benchmark_flags(const std::vector<std::string>& args);

}  // namespace vitals::cli
