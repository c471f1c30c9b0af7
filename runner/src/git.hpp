// What git says about the current folder, for the history's commit, branch and time.
// Internal to the runner.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace vitals::cli {

// `git ARGS...` in the current folder, without a shell: the first line it prints, or
// nullopt when git is missing or fails (no checkout here).
std::optional<std::string> git(const std::vector<std::string>& args);

// The commit, branch and commit time of the checkout here (rev-parse HEAD, rev-parse
// --abbrev-ref HEAD, show -s --format=%cI HEAD), each overridden where given; UsageError
// naming the flag to give when git cannot say.
struct GitRevision {
    std::string commit, branch, time;
};
GitRevision git_revision(const std::optional<std::string>& commit, const std::optional<std::string>& branch,
                         const std::optional<std::string>& time);

}  // namespace vitals::cli
