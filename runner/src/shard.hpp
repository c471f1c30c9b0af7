// Sharding: a deterministic share of the cases for each of several processes, from
// --shard K/N or a launcher's rank. Internal to the runner.
#pragma once

#include <optional>
#include <string>

namespace vitals {

// The cases whose position modulo count is index.
struct Shard {
    int index = 0;
    int count = 1;
    std::string to_string() const { return std::to_string(index) + "/" + std::to_string(count); }
    bool includes(std::size_t position) const { return static_cast<int>(position % static_cast<std::size_t>(count)) == index; }
};
// "K/N" with 0 <= K < N; throws std::invalid_argument naming the problem.
Shard parse_shard(const std::string& spec);
// This process's place among those a launcher (Slurm, Open MPI, PMI, torchrun) started.
struct LauncherRank {
    int rank = 0;
    int size = 1;
};
// From the launcher's environment: Slurm, Open MPI, PMI, or torchrun's RANK/WORLD_SIZE.
// Throws std::invalid_argument, naming the variables, when they are not a rank of a
// size or when two launchers' variables disagree.
std::optional<LauncherRank> launcher_rank();
// The shard a launcher's rank runs when no --shard is given: rank/size.
inline Shard shard_of(const LauncherRank& r) { return {r.rank, r.size}; }

}  // namespace vitals
