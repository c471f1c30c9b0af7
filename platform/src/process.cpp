#include "vitals/internal/process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <system_error>

extern char** environ;

namespace vitals {
namespace {

ExitStatus decode(int status) {
    return WIFSIGNALED(status) ? ExitStatus{true, WTERMSIG(status)} : ExitStatus{false, WEXITSTATUS(status)};
}

// argv and the environment as execve wants them; built before fork, since the child of
// a threaded program may only make async-signal-safe calls.
struct ExecArguments {
    std::vector<char*> args, env;
    ExecArguments(const std::vector<std::string>& argv, const ProcessOptions& options) {
        for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
        args.push_back(nullptr);
        for (char** e = environ; *e != nullptr; ++e) env.push_back(*e);
        for (const std::string& e : options.extra_environment) env.push_back(const_cast<char*>(e.c_str()));
        env.push_back(nullptr);
    }
};

}  // namespace

std::string ExitStatus::describe() const {
    if (!signaled) return "exit status " + std::to_string(code);
    const char* abbreviation = ::sigabbrev_np(code);
    const char* description = ::sigdescr_np(code);
    std::string out = abbreviation != nullptr ? std::string("SIG") + abbreviation : "signal " + std::to_string(code);
    if (description != nullptr) out += std::string(" (") + description + ")";
    return out;
}

int run_process(const std::vector<std::string>& argv, const ProcessOptions& options) {
    if (argv.empty()) throw std::invalid_argument("run_process: no program given");
    ExecArguments exec(argv, options);
    posix_spawnattr_t attributes;
    posix_spawnattr_init(&attributes);
    sigset_t defaults;
    sigemptyset(&defaults);
    sigaddset(&defaults, SIGPIPE);  // this program ignores it; the other program gets the default
    posix_spawnattr_setsigdefault(&attributes, &defaults);
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGDEF);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    if (options.discard_stdout) posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
    if (options.discard_stderr) posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
    pid_t pid = 0;
    const int started = ::posix_spawnp(&pid, exec.args[0], &actions, &attributes, exec.args.data(), exec.env.data());
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attributes);
    if (started != 0) throw std::system_error(started, std::generic_category(), "cannot start " + argv[0]);
    int status = 0;
    bool forwarded = false;
    while (::waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) throw std::system_error(errno, std::generic_category(), "waiting for " + argv[0]);
        const int signal = options.forward_signal != nullptr ? options.forward_signal->load() : 0;
        if (signal != 0 && !forwarded) {
            ::kill(pid, signal);
            forwarded = true;
        }
    }
    const ExitStatus ended = decode(status);
    return ended.signaled ? 128 + ended.code : ended.code;
}

std::string self_executable() {
    std::error_code error;
    const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", error);
    if (error) throw std::runtime_error("cannot find this program's path (/proc/self/exe) to run it again");
    return self.string();
}

SelfExecutable::SelfExecutable() : path_(self_executable()) {
    fd_ = ::open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) {
        throw std::runtime_error(std::string("cannot open this program (/proc/self/exe) to run it again: ") +
                                 std::strerror(errno));
    }
}

SelfExecutable::~SelfExecutable() { ::close(fd_); }

ChildProcess::ChildProcess(const SelfExecutable& executable, const std::vector<std::string>& argv,
                           const ProcessOptions& options) {
    if (argv.empty()) throw std::invalid_argument("ChildProcess: no arguments given");
    ExecArguments exec(argv, options);
    const pid_t parent = ::getpid();
    const int program = executable.descriptor();
    pid_ = ::fork();
    if (pid_ < 0) throw std::system_error(errno, std::generic_category(), "cannot start " + argv[0]);
    if (pid_ == 0) {
        // The child: async-signal-safe calls only, until the exec.
        ::prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (::getppid() != parent) ::_exit(127);  // the parent died before the line above
        ::setpgid(0, 0);  // a terminal's Ctrl-C reaches the parent alone, which passes it on once
        ::signal(SIGPIPE, SIG_DFL);  // the parent ignores it; exec keeps an ignored signal ignored
        sigset_t none;
        sigemptyset(&none);
        ::sigprocmask(SIG_SETMASK, &none, nullptr);
        const int null_in = ::open("/dev/null", O_RDONLY);
        if (null_in < 0 || ::dup2(null_in, STDIN_FILENO) < 0) ::_exit(127);
        if (options.discard_stdout || options.discard_stderr) {
            const int null_out = ::open("/dev/null", O_WRONLY);
            if (null_out < 0) ::_exit(127);
            if (options.discard_stdout && ::dup2(null_out, STDOUT_FILENO) < 0) ::_exit(127);
            if (options.discard_stderr && ::dup2(null_out, STDERR_FILENO) < 0) ::_exit(127);
        }
        ::fexecve(program, exec.args.data(), exec.env.data());
        ::_exit(127);
    }
    pidfd_ = static_cast<int>(::syscall(SYS_pidfd_open, pid_, 0));  // -1 on kernels before 5.3: polled instead
}

ChildProcess::~ChildProcess() {
    if (!status_) {
        ::kill(pid_, SIGKILL);
        int status = 0;
        while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
        }
    }
    if (pidfd_ >= 0) ::close(pidfd_);
}

std::optional<ExitStatus> ChildProcess::wait_for(std::chrono::milliseconds timeout) {
    if (status_) return status_;
    const auto reap = [&]() -> bool {
        int status = 0;
        const pid_t done = ::waitpid(pid_, &status, WNOHANG);
        if (done == pid_) status_ = decode(status);
        return status_.has_value();
    };
    if (reap()) return status_;
    if (pidfd_ >= 0) {
        pollfd p{pidfd_, POLLIN, 0};
        const int ready = ::poll(&p, 1, static_cast<int>(timeout.count()));
        if (ready > 0) reap();
        return status_;
    }
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < deadline) {
        const timespec step{0, 10'000'000};
        if (::nanosleep(&step, nullptr) != 0) return std::nullopt;  // a signal: let the caller look
        if (reap()) return status_;
    }
    return std::nullopt;
}

void ChildProcess::signal(int signal) {
    if (!status_) ::kill(pid_, signal);
}

}  // namespace vitals
