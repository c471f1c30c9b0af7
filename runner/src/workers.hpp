// run --processes: each case measured in fresh processes of this program, which are
// checked, never trusted. Internal to the runner.
#pragma once

#include <string>
#include <vector>

#include "vitals/case.hpp"
#include "vitals/results.hpp"

namespace vitals::cli {

// The hidden flag that makes `vitals run` a worker of another run: one case, no tables.
inline constexpr const char* kWorkerFlag = "--worker-of";

// How the workers run.
struct WorkerPlan {
    int processes = 1;
    // Seconds a worker may take for its case before it is stopped (its case then failed
    // in that process as timed out).
    double case_timeout = 0;
    // Flags every worker gets after `run --json FILE --filter NAME`: the axes and the
    // measurement options, so that it measures exactly as this process was asked.
    std::vector<std::string> flags;
};

// What the workers gave. `results`: every case reached, in the selected order, joined
// over its processes: a case failed in any process carries that process's failure (and
// keeps the blocks of the others). `lost_process`: some process of some case was lost (a
// crash, a time-out, an early exit), so the run is incomplete.
struct WorkerRuns {
    std::vector<CaseResult> results;
    bool interrupted = false;
    bool lost_process = false;
};

// Runs process 1 of every selected case, then process 2, ...: one worker process per
// case and process, started from this program's executable as it was when the run began.
// A stop signal is passed on to the running worker (each time it arrives); a worker that
// does not stop within seconds of a second one is killed.
WorkerRuns measure_in_processes(const std::vector<const Case*>& selected, const WorkerPlan& plan);

}  // namespace vitals::cli
