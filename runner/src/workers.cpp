#include "workers.hpp"

#include <fmt/format.h>
#include <signal.h>
#include <stdlib.h>

#include <re2/re2.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <optional>

#include "command.hpp"
#include "output_flag.hpp"
#include "stop_signals.hpp"
#include "vitals/internal/process.hpp"

namespace vitals::cli {
namespace {

using Clock = std::chrono::steady_clock;

// A folder of our own under the system's temporary folder, removed with what it holds.
struct TemporaryFolder {
    std::filesystem::path path;
    TemporaryFolder() {
        std::string name = (std::filesystem::temp_directory_path() / "vitals-run-XXXXXX").string();
        if (::mkdtemp(name.data()) == nullptr) {
            throw std::runtime_error(fmt::format("cannot create a temporary folder for the worker processes in '{}': {}; "
                                                 "set TMPDIR to a writable folder",
                                                 std::filesystem::temp_directory_path().string(), std::strerror(errno)));
        }
        path = name;
    }
    ~TemporaryFolder() {
        std::error_code ignored;
        std::filesystem::remove_all(path, ignored);
    }
    TemporaryFolder(const TemporaryFolder&) = delete;
    TemporaryFolder& operator=(const TemporaryFolder&) = delete;
};

// One case in one process: what its worker gave.
struct Outcome {
    bool reached = false;           // false: the run stopped before this worker finished its case
    std::optional<CaseResult> result;  // the case as the worker wrote it
    std::string failure;            // non-empty: the process is lost for this case, and why
};

// Waits for the worker, passing on stop signals and enforcing the time limit.
struct Ended {
    ExitStatus status;
    bool timed_out = false;
};

Ended supervise(ChildProcess& worker, double timeout_seconds) {
    const auto started = Clock::now();
    const auto elapsed = [&] { return std::chrono::duration<double>(Clock::now() - started).count(); };
    int forwarded = 0;
    std::optional<Clock::time_point> kill_at;  // after a stop we asked for, the worker's grace ends here
    bool timed_out = false;
    for (;;) {
        if (const std::optional<ExitStatus> status = worker.wait_for(std::chrono::milliseconds(50))) {
            return {*status, timed_out};
        }
        const int signals = stop_signal_count();
        while (forwarded < signals) {  // every signal reaches the worker, the second one too
            worker.signal(stop_signal());
            ++forwarded;
            if (forwarded >= 2 && !kill_at) kill_at = Clock::now() + std::chrono::seconds(10);
        }
        if (!timed_out && timeout_seconds > 0 && elapsed() > timeout_seconds) {
            timed_out = true;  // its one case is lost either way: no grace
            worker.signal(SIGKILL);
        }
        if (kill_at && Clock::now() >= *kill_at) worker.signal(SIGKILL);
    }
}

Outcome run_worker(const SelfExecutable& self, const Case& c, const WorkerPlan& plan, int process,
                   const std::filesystem::path& folder) {
    // The worker names its file as a process under a launcher would: "{rank}" is filled
    // with the same rank there.
    const std::string asked = (folder / fmt::format("process{}.{{rank}}.json", process)).string();
    const std::string file = output_for_this_rank(asked);
    std::string exactly = "^";  // built in steps: GCC 12 warns (-Wrestrict) about "^" + ...
    exactly += re2::RE2::QuoteMeta(c.name);
    exactly += "$";
    std::vector<std::string> argv = {self.path(), "run", "--json", asked, "--filter", exactly,
                                     "--shard", "0/1", kWorkerFlag, fmt::format("{}/{}", process + 1, plan.processes)};
    argv.insert(argv.end(), plan.flags.begin(), plan.flags.end());
    Ended ended;
    {
        ChildProcess worker(self, argv, {.discard_stdout = true});
        ended = supervise(worker, plan.case_timeout);
    }
    Outcome out;
    const std::string partial = tagged_path(file, "partial");
    const std::string written = std::filesystem::exists(file) ? file : std::filesystem::exists(partial) ? partial : "";
    if (ended.timed_out) {
        out.reached = true;
        out.failure = fmt::format("timed out: still running after {:g} s (--case-timeout), its worker was killed",
                                  plan.case_timeout);
        return out;
    }
    if (interrupted()) {  // a stop we passed on: whatever the worker finished counts
        if (!written.empty() && !ended.status.signaled) {
            try {
                for (CaseResult& r : read_case_results(written)) {
                    if (r.name == c.name) out = {true, std::move(r), ""};
                }
            } catch (const ResultsFileError&) {
            }
        }
        return out;
    }
    out.reached = true;
    const std::string status = ended.status.describe();
    if (ended.status.signaled) {
        out.failure = fmt::format("its worker process was ended by {}", status);
        return out;
    }
    if (written.empty()) {
        out.failure = fmt::format("its worker process ended with {} without writing its results{}", status,
                                  ended.status.code == 0 ? " (did the case call exit()?)" : " (its messages are above)");
        return out;
    }
    std::vector<CaseResult> results;
    try {
        results = read_case_results(written);
    } catch (const ResultsFileError& e) {
        out.failure = fmt::format("its worker process ended with {} and left results that cannot be read: {}", status, e.what());
        return out;
    }
    const auto found = std::find_if(results.begin(), results.end(), [&](const CaseResult& r) { return r.name == c.name; });
    if (written == partial || found == results.end()) {
        out.failure = fmt::format("its worker process ended with {} before finishing the case", status);
        return out;
    }
    const bool consistent = ended.status.code == (found->error.empty() ? 0 : kExitFailure);
    if (!consistent) {
        out.failure = fmt::format("its worker process ended with {}, which its results do not explain", status);
        return out;
    }
    out.result = std::move(*found);
    return out;
}

// A case's outcomes over its processes, joined.
CaseResult join(const Case& c, const std::vector<Outcome>& outcomes, int processes) {
    CaseResult joined{c.name, std::nullopt, "", ""};
    std::vector<std::string> skips;
    for (std::size_t p = 0; p < outcomes.size(); ++p) {
        const Outcome& o = outcomes[p];
        const int process = static_cast<int>(p);
        if (!o.failure.empty()) {
            joined.failed_processes.push_back({process, o.failure});
        } else if (o.result && o.result->measurement) {
            joined.per_process.push_back(*o.result->measurement);
            joined.processes.push_back(process);
        } else if (o.result && !o.result->error.empty()) {
            joined.failed_processes.push_back({process, o.result->error});
        } else if (o.result && !o.result->skipped.empty()) {
            skips.push_back(o.result->skipped);
        }
    }
    if (!joined.per_process.empty()) joined.measurement = Measurement::merge(joined.per_process).front();
    if (!joined.failed_processes.empty()) {
        const CaseResult::ProcessFailure& first = joined.failed_processes.front();
        std::string why = first.why;
        if (const std::string said = fmt::format("case '{}' failed: ", c.name); why.rfind(said, 0) == 0) why.erase(0, said.size());
        joined.error = fmt::format("case '{}' failed in process {} of {}{}: {}", c.name, first.process + 1, processes,
                                   joined.failed_processes.size() > 1
                                       ? fmt::format(" (and {} more)", joined.failed_processes.size() - 1)
                                       : "",
                                   why);
    } else if (!joined.measurement && !skips.empty()) {
        joined.skipped = skips.front();
    }
    return joined;
}

}  // namespace

WorkerRuns measure_in_processes(const std::vector<const Case*>& selected, const WorkerPlan& plan) {
    const SelfExecutable self;  // opened now: a rebuild of the program during the run changes nothing
    const TemporaryFolder folder;
    std::vector<std::vector<Outcome>> outcomes(selected.size());
    WorkerRuns runs;
    for (int p = 0; p < plan.processes && !runs.interrupted; ++p) {
        for (std::size_t i = 0; i < selected.size(); ++i) {
            fmt::print(stderr, "[process {}/{}] [{}/{}] {}\n", p + 1, plan.processes, i + 1, selected.size(), selected[i]->name);
            std::fflush(stderr);
            Outcome o = run_worker(self, *selected[i], plan, p, folder.path);
            std::error_code ignored;
            for (const auto& entry : std::filesystem::directory_iterator(folder.path, ignored)) {
                std::filesystem::remove(entry.path(), ignored);  // each worker writes a fresh file
            }
            if (!o.failure.empty()) {
                runs.lost_process = true;
                print_error(fmt::format("{}, process {} of {}: {}", selected[i]->name, p + 1, plan.processes, o.failure));
            } else if (o.result && !o.result->error.empty()) {
                print_error(fmt::format("process {} of {}: {}", p + 1, plan.processes, o.result->error));
            }
            if (o.reached) outcomes[i].push_back(std::move(o));
            if (interrupted()) {
                runs.interrupted = true;
                fmt::print(stderr, "interrupted by {} during process {} of {} of {}\n", signal_name(stop_signal()), p + 1,
                           plan.processes, selected[i]->name);
                break;
            }
        }
    }
    for (std::size_t i = 0; i < selected.size(); ++i) {
        if (outcomes[i].empty()) continue;  // never reached
        runs.results.push_back(join(*selected[i], outcomes[i], plan.processes));
    }
    return runs;
}

}  // namespace vitals::cli
