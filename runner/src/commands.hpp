// The runner's commands that work on results files. Internal to the runner.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "vitals/results.hpp"

namespace vitals::detail {

struct CompareOptions {
    double alpha = 0.05;
    double noise_floor = 0.01;  // a fraction
};

// The before/after report of `vitals compare` and `vitals run --baseline`; when
// json_out is given, also the per-case JSON document.
std::string compare_report(const std::string& before_name, const std::vector<CaseSamples>& before,
                           const std::string& after_name, const std::vector<CaseSamples>& after,
                           const CompareOptions& options, std::string* json_out = nullptr);

// Whether a file is a Chrome trace (a profile) rather than a results file.
bool looks_like_trace(const std::string& path);
// Per operator, self CPU time before, after and the change, sorted by absolute change.
std::string profile_diff_report(const std::string& before_path, const std::string& after_path);

// Names of the cases the report found slower (for --profile-slow).
std::vector<std::string> slower_cases(const std::vector<CaseSamples>& before, const std::vector<CaseSamples>& after,
                                      const CompareOptions& options, double min_change);

// A deterministic 1/count of the cases: those whose position modulo count is index.
struct Shard {
    int index = 0;
    int count = 1;
    std::string to_string() const { return std::to_string(index) + "/" + std::to_string(count); }
};
// "K/N" with 0 <= K < N; throws std::invalid_argument naming the problem.
Shard parse_shard(const std::string& spec);
// From the launcher's environment: Slurm, Open MPI, PMI, or torchrun's RANK/WORLD_SIZE.
std::optional<Shard> shard_from_environment();

}  // namespace vitals::detail
