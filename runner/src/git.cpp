#include "git.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>

#include "command.hpp"

extern char** environ;

namespace vitals::cli {

std::optional<std::string> git(const std::vector<std::string>& args) {
    int pipe_fds[2];
    if (::pipe2(pipe_fds, O_CLOEXEC) != 0) return std::nullopt;
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDOUT_FILENO);
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
    std::vector<std::string> argv{"git"};
    argv.insert(argv.end(), args.begin(), args.end());
    std::vector<char*> c_argv;
    for (std::string& a : argv) c_argv.push_back(a.data());
    c_argv.push_back(nullptr);
    pid_t pid = 0;
    const int spawned = ::posix_spawnp(&pid, "git", &actions, nullptr, c_argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    ::close(pipe_fds[1]);
    std::string out;
    if (spawned == 0) {
        char buffer[4096];
        for (ssize_t n; (n = ::read(pipe_fds[0], buffer, sizeof buffer)) > 0;) out.append(buffer, static_cast<std::size_t>(n));
    }
    ::close(pipe_fds[0]);
    if (spawned != 0) return std::nullopt;
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return std::nullopt;
    out = out.substr(0, out.find('\n'));
    if (out.empty()) return std::nullopt;
    return out;
}

GitRevision git_revision(const std::optional<std::string>& commit, const std::optional<std::string>& branch,
                         const std::optional<std::string>& time) {
    const auto given_or_git = [](const std::optional<std::string>& given, const std::vector<std::string>& args,
                                 const char* flag) {
        if (given) return *given;
        if (std::optional<std::string> found = git(args)) return *found;
        throw UsageError(fmt::format("this folder is no git checkout (or git is missing): give {}", flag));
    };
    return {given_or_git(commit, {"rev-parse", "HEAD"}, "--commit SHA"),
            given_or_git(branch, {"rev-parse", "--abbrev-ref", "HEAD"}, "--branch NAME"),
            given_or_git(time, {"show", "-s", "--format=%cI", "HEAD"}, "--time 2026-12-04T18:00:00Z")};
}

}  // namespace vitals::cli
