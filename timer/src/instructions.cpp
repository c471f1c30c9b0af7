// Instruction counts of a statement: hardware counters or Callgrind client requests.
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
#include <cstring>
#include <stdexcept>

#include "vitals/detail/threads.hpp"
#include "vitals/timer.hpp"

namespace vitals {
namespace {

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

InstructionCount Timer::collect_instructions(const InstructionOptions& options) {
    if (options.number < 1) {
        throw std::invalid_argument(fmt::format("collect_instructions: number must be >= 1, got {}", options.number));
    }
    detail::ThreadCountScope threads(options_.num_threads);
    run_global_setup_once();
    options_.setup.run(1);
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
