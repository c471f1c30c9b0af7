// Instruction counts of a statement: hardware counters, or Callgrind client requests in
// a run of the program under Valgrind.
#include "vitals/instructions.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <linux/perf_event.h>
#include <spawn.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#else  // built without Valgrind's headers: never under Callgrind
#define RUNNING_ON_VALGRIND 0
#define CALLGRIND_TOGGLE_COLLECT
#endif

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "timer_run.hpp"

extern char** environ;

namespace vitals {
namespace {

constexpr const char* kCallgrindChild = "VITALS_CALLGRIND_CHILD";

// A counter of the instructions this thread executes in user space, or -errno.
int open_instruction_counter() {
    perf_event_attr attr{};
    attr.type = PERF_TYPE_HARDWARE;
    attr.size = sizeof attr;
    attr.config = PERF_COUNT_HW_INSTRUCTIONS;
    attr.disabled = 1;
    attr.exclude_kernel = 1;
    attr.exclude_hv = 1;
    const long fd = ::syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
    return fd < 0 ? -errno : static_cast<int>(fd);
}

// Runs argv with this environment plus `extra`, output discarded; returns the wait status,
// or -errno when it could not start.
int run_quietly(const std::vector<std::string>& argv, const std::string& extra) {
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    std::vector<char*> env;
    for (char** e = environ; *e != nullptr; ++e) env.push_back(*e);
    env.push_back(const_cast<char*>(extra.c_str()));
    env.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
    pid_t pid = 0;
    const int started = ::posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), env.data());
    posix_spawn_file_actions_destroy(&actions);
    if (started != 0) return -started;
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) return -errno;
    }
    return status;
}

}  // namespace

bool is_callgrind_child() { return std::getenv(kCallgrindChild) != nullptr; }

double count_under_callgrind(const std::vector<std::string>& command, std::int64_t number) {
    if (command.empty() || number < 1) throw std::invalid_argument("count_under_callgrind: a command and number >= 1");
    char folder_template[] = "/tmp/vitals-callgrind-XXXXXX";
    const char* folder = ::mkdtemp(folder_template);
    if (folder == nullptr) throw std::runtime_error(fmt::format("cannot create a temporary folder: {}", std::strerror(errno)));
    const std::string out_file = std::string(folder) + "/callgrind.out";
    std::vector<std::string> argv = {"valgrind", "--tool=callgrind", "--collect-atstart=no",
                                     "--callgrind-out-file=" + out_file, "--log-file=" + std::string(folder) + "/valgrind.log"};
    argv.insert(argv.end(), command.begin(), command.end());
    const int status = run_quietly(argv, std::string(kCallgrindChild) + "=1");
    double total = -1;
    std::ifstream in(out_file);
    for (std::string line; std::getline(in, line);) {
        if (line.rfind("totals:", 0) == 0 || line.rfind("summary:", 0) == 0) total = std::atof(line.c_str() + line.find(':') + 1);
    }
    in.close();
    std::error_code ignored;
    std::filesystem::remove_all(folder, ignored);
    if (status == -ENOENT) {
        throw std::runtime_error(
            "cannot count instructions: no hardware counters here and valgrind is not installed (apt-get install valgrind)");
    }
    if (status < 0) throw std::runtime_error(fmt::format("cannot start valgrind: {}", std::strerror(-status)));
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || total < 0) {
        throw std::runtime_error("cannot count instructions: the run under Callgrind failed");
    }
    return total / static_cast<double>(number);
}

InstructionCount Timer::collect_instructions(const InstructionOptions& options) {
    if (options.number < 1) {
        throw std::invalid_argument(fmt::format("collect_instructions: number must be >= 1, got {}", options.number));
    }
    Run run(options_, global_setup_done_);
    run.setup();
    options_.stmt.run(1);  // warm-up: lazy initialisation is not the statement's cost
    InstructionCount count{options.number, -1, ""};
    if (RUNNING_ON_VALGRIND) {
        CALLGRIND_TOGGLE_COLLECT;
        options_.stmt.run(options.number);
        CALLGRIND_TOGGLE_COLLECT;
        count.source = "callgrind";
        return count;
    }
    const int fd = open_instruction_counter();
    if (fd < 0) {
        throw std::runtime_error(fmt::format(
            "cannot count instructions here: hardware counters are unavailable (perf_event_open: {}) and the program "
            "is not running under Valgrind; use 'vitals timeit NAME --instructions', which runs the case under Callgrind",
            std::strerror(-fd)));
    }
    ::ioctl(fd, PERF_EVENT_IOC_RESET, 0);
    ::ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
    options_.stmt.run(options.number);
    ::ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
    long long value = 0;
    const ssize_t got = ::read(fd, &value, sizeof value);
    ::close(fd);
    if (got != static_cast<ssize_t>(sizeof value)) throw std::runtime_error("cannot read the instruction counter");
    count.total = value;
    count.source = "perf_event_open";
    return count;
}

}  // namespace vitals
