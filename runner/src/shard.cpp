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

std::optional<Shard> shard_from_environment() {
    static const char* const kLaunchers[][2] = {
        {"SLURM_PROCID", "SLURM_NTASKS"},
        {"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"},
        {"PMI_RANK", "PMI_SIZE"},
        {"RANK", "WORLD_SIZE"},
    };
    for (const auto& [rank, size] : kLaunchers) {
        const char* r = std::getenv(rank);
        const char* n = std::getenv(size);
        if (r != nullptr && n != nullptr) {
            try {
                return parse_shard(std::string(r) + "/" + n);
            } catch (const std::invalid_argument& e) {
                throw std::invalid_argument(fmt::format("{}={} and {}={} do not name a shard: {}", rank, r, size, n, e.what()));
            }
        }
    }
    return std::nullopt;
}

}  // namespace vitals
