#include "output_flag.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <stdexcept>

#include "command.hpp"

namespace vitals::cli {

std::string tagged_path(const std::string& path, const std::string& tag) {
    if (path == "-" || path.rfind("/dev/", 0) == 0 || path.rfind("/proc/", 0) == 0) return path;
    const std::filesystem::path p(path);
    return (p.parent_path() / (p.stem().string() + "." + tag + p.extension().string())).string();
}

std::string output_for_this_rank(const std::string& path, const std::optional<Shard>& explicit_shard) {
    std::optional<LauncherRank> rank;
    try {
        rank = launcher_rank();
    } catch (const std::invalid_argument& e) {
        throw UsageError(e.what());
    }
    const std::string index = std::to_string(rank ? rank->rank : 0);
    std::string out = path;
    if (const auto at = out.find("{rank}"); at != std::string::npos) {
        for (auto p = out.find("{rank}"); p != std::string::npos; p = out.find("{rank}", p + index.size())) {
            out.replace(p, 6, index);
        }
        return out;
    }
    if (!rank || rank->size < 2) return path;
    // Ranks that each name their own shard still write apart, whatever shards they name.
    out = tagged_path(path, "rank" + index + (explicit_shard ? ".shard" + std::to_string(explicit_shard->index) : ""));
    if (out == path) return path;
    fmt::print(stderr, "rank {} of {} writes {} (put {{rank}} in the path to name the files yourself)\n", index, rank->size,
               out);
    return out;
}

std::string reserve_standard_output(const std::string& path) {
    if (!is_standard_output(path)) return path;
    std::fflush(stdout);
    const int kept = ::fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
    if (kept < 0 || ::dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
        throw std::runtime_error(fmt::format("cannot keep standard output for '{}': {}", path, std::strerror(errno)));
    }
    return fmt::format("/dev/fd/{}", kept);
}

CLI::Option* OutputFlag::declare(CLI::App& app, const std::string& names, const std::string& description) {
    return app.add_option(names, path_, description);
}

std::optional<OutputFile> OutputFlag::prepare(const Rules& rules) {
    if (!path_) return std::nullopt;
    path_ = output_for_this_rank(*path_, rules.shard);
    std::optional<OutputFile> file(std::in_place, *path_);
    if (!rules.inputs.empty()) check_outputs_are_not_inputs({*path_}, rules.inputs);
    write_path_ = *path_;
    if (rules.keep_standard_output && is_standard_output(*path_)) {
        write_path_ = reserve_standard_output(*path_);
        file.emplace(write_path_);
    }
    return file;
}

void OutputFlag::check_apart(const std::vector<std::pair<std::string, const OutputFlag*>>& flags) {
    for (std::size_t i = 0; i < flags.size(); ++i) {
        for (std::size_t j = 0; j < i; ++j) {
            const OutputFlag &a = *flags[j].second, &b = *flags[i].second;
            if (!a.given() || !b.given()) continue;
            const bool both_stdout = is_standard_output(a.path()) && is_standard_output(b.path());
            std::error_code error;
            if (both_stdout || a.path() == b.path() || std::filesystem::equivalent(a.path(), b.path(), error)) {
                throw UsageError(fmt::format("{} and {} both write '{}'; give one of them another file", flags[j].first,
                                             flags[i].first, b.path()));
            }
        }
    }
}

}  // namespace vitals::cli
