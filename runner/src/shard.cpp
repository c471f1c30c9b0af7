#include "shard.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <stdexcept>

namespace vitals {

Shard parse_shard(const std::string& spec) {
    const auto slash = spec.find('/');
    const auto number = [&](const std::string& text) {
        std::size_t used = 0;
        int value = -1;
        try {
            value = std::stoi(text, &used);
        } catch (...) {
            used = 0;
        }
        if (text.empty() || used != text.size()) {
            throw std::invalid_argument(fmt::format("shard '{}' is not of the form K/N (e.g. 0/4)", spec));
        }
        return value;
    };
    if (slash == std::string::npos) throw std::invalid_argument(fmt::format("shard '{}' is not of the form K/N (e.g. 0/4)", spec));
    const Shard s{number(spec.substr(0, slash)), number(spec.substr(slash + 1))};
    if (s.count < 1 || s.index < 0 || s.index >= s.count) {
        throw std::invalid_argument(fmt::format("shard '{}' needs 0 <= K < N", spec));
    }
    return s;
}

std::optional<LauncherRank> launcher_rank() {
    static const char* const kLaunchers[][2] = {
        {"SLURM_PROCID", "SLURM_NTASKS"},
        {"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"},
        {"PMI_RANK", "PMI_SIZE"},
        {"RANK", "WORLD_SIZE"},
    };
    std::optional<Shard> found;
    std::string found_from;
    for (const auto& [rank, size] : kLaunchers) {
        const char* r = std::getenv(rank);
        const char* n = std::getenv(size);
        if (r == nullptr || n == nullptr) continue;
        const std::string from = fmt::format("{}={} and {}={}", rank, r, size, n);
        Shard shard;
        try {
            shard = parse_shard(std::string(r) + "/" + n);
        } catch (const std::invalid_argument& e) {
            throw std::invalid_argument(fmt::format("{} do not name a shard: {}", from, e.what()));
        }
        if (found && (found->index != shard.index || found->count != shard.count)) {
            throw std::invalid_argument(fmt::format(
                "two launchers disagree: {} say shard {}, but {} say {}; unset the variables of the launcher that did not "
                "start this process, or give --shard K/N",
                found_from, found->to_string(), from, shard.to_string()));
        }
        if (!found) {
            found = shard;
            found_from = from;
        }
    }
    if (!found) return std::nullopt;
    return LauncherRank{found->index, found->count};
}

}  // namespace vitals
