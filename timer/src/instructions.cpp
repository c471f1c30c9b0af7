// Instruction counts of a statement: hardware counters, or Callgrind client requests in
// a run of the program under Valgrind.
#include "vitals/instructions.hpp"

#include <fmt/format.h>
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
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
#include <system_error>

#include "timer_run.hpp"
#include "vitals/number_text.hpp"
#include "vitals/internal/process.hpp"

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

}  // namespace

bool is_callgrind_child() { return std::getenv(kCallgrindChild) != nullptr; }

double count_under_callgrind(const std::vector<std::string>& command, std::int64_t number) {
    if (command.empty() || number < 1) throw std::invalid_argument("count_under_callgrind: a command and number >= 1");
    std::string folder_template = (std::filesystem::temp_directory_path() / "vitals-callgrind-XXXXXX").string();  // TMPDIR
    const char* folder = ::mkdtemp(folder_template.data());
    if (folder == nullptr) throw std::runtime_error(fmt::format("cannot create a temporary folder: {}", std::strerror(errno)));
    const std::string out_file = std::string(folder) + "/callgrind.out";
    std::vector<std::string> argv = {"valgrind", "--tool=callgrind", "--collect-atstart=no",
                                     "--callgrind-out-file=" + out_file, "--log-file=" + std::string(folder) + "/valgrind.log"};
    argv.insert(argv.end(), command.begin(), command.end());
    int status = 0;
    try {
        status = run_process(argv, {.extra_environment = {std::string(kCallgrindChild) + "=1"},
                                    .discard_stdout = true,
                                    .discard_stderr = true});
    } catch (const std::system_error& e) {
        status = -e.code().value();
    }
    double total = -1;
    std::ifstream in(out_file);
    for (std::string line; std::getline(in, line);) {
        if (line.rfind("totals:", 0) == 0 || line.rfind("summary:", 0) == 0) total = parse_leading_double(std::string_view(line).substr(line.find(':') + 1)).value_or(-1);
    }
    in.close();
    std::error_code ignored;
    std::filesystem::remove_all(folder, ignored);
    if (status == -ENOENT) {
        throw std::runtime_error(
            "cannot count instructions: no hardware counters here and valgrind is not installed (apt-get install valgrind)");
    }
    if (status < 0) throw std::runtime_error(fmt::format("cannot start valgrind: {}", std::strerror(-status)));
    if (status != 0 || total < 0) {
        throw std::runtime_error("cannot count instructions: the run under Callgrind failed");
    }
    return total / static_cast<double>(number);
}

InstructionCount Timer::collect_instructions(const InstructionOptions& options) {
    if (options.number < 1) {
        throw std::invalid_argument(fmt::format("collect_instructions: number must be >= 1, got {}", options.number));
    }
    Run run(options_, global_setup_done_, in_use_.flag);
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
