// Trace: the events of one finished profiling window, ready for tables and files.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string_view>
#include <string>
#include <vector>

#include "vitals/profiler/key_averages.hpp"
#include "vitals/profiler/record_function.hpp"

namespace vitals::profiler {

// The inputs of an operator (with record_shapes).
struct EventInputs {
    std::vector<std::vector<std::int64_t>> shapes;
    std::vector<std::string> types;  // torch's names: "float", "double", ...
};

// A host event: an operator or a labelled region on one thread. 56 bytes: what a finished
// trace holds per event (names are stored once per trace, inputs and totals beside).
struct Event {
    // A view of the trace's name table (or of the literal that named the scope): valid
    // while the Trace, or any copy of it, lives.
    std::string_view name;
    std::int64_t start_ns = 0;  // steady_clock nanoseconds
    std::int64_t end_ns = 0;
    std::int64_t external_id = 0;  // unique per trace; device work it launched carries it too
    std::int32_t thread = 0;       // index into Trace::threads
    std::int32_t parent = -1;      // index of the enclosing event on the same thread
    std::int32_t inputs = -1;      // index into Trace::inputs, -1 without recorded shapes
    Category category = Category::user_annotation;

    std::int64_t duration_ns() const { return end_ns - start_ns; }
};

// What compute_attribution derives for one event.
struct EventTotals {
    std::int64_t cpu_memory = 0;        // allocated minus freed inside, children included
    std::int64_t self_cpu_memory = 0;   // the same without children
    std::int64_t cuda_memory = 0;
    std::int64_t self_cuda_memory = 0;
    std::int64_t cuda_time_ns = 0;       // device time of work launched inside, children included
    std::int64_t self_cuda_time_ns = 0;  // launched by this event itself
};

// A memory event ([memory] in traces).
struct MemoryEvent {
    std::int64_t ts_ns = 0;
    int thread = 0;
    MemoryRecord record{};
};

// Device activity from CUPTI: kernels, copies, fills, runtime calls.
struct DeviceEvent {
    enum class Kind { kernel, memcpy, memset, runtime };
    Kind kind = Kind::kernel;
    std::string name;
    int device = 0;
    std::int64_t stream = 0;
    std::int64_t start_ns = 0, end_ns = 0;
    std::int64_t correlation = 0;
    std::int64_t external_id = 0;  // of the host event that launched it, 0 if none
    std::int64_t bytes = 0;        // copies and fills
    std::int64_t host_tid = 0;     // runtime calls: the calling thread
    int grid[3] = {0, 0, 0}, block[3] = {0, 0, 0};
};

struct ThreadInfo {
    std::int64_t tid = 0;
    std::string name;
};

struct Trace {
    std::vector<ThreadInfo> threads;
    std::vector<Event> events;  // per thread in start order, parents before children
    std::vector<EventInputs> inputs;  // what Event::inputs indexes
    std::vector<EventTotals> totals;  // per event, from compute_attribution; empty when all are zero
    std::vector<MemoryEvent> memory;
    std::vector<DeviceEvent> device;
    std::int64_t pid = 0;
    std::int64_t start_ns = 0, end_ns = 0;  // the window, steady_clock
    std::int64_t base_time_ns = 0;          // wall-clock (Unix) nanoseconds at start_ns
    std::string worker_name;                // "<host>_<pid>" unless set
    int rank = -1, world_size = -1;         // distributed runs, when known
    bool profile_memory = false;            // memory was recorded: tables show its columns
    // Scopes begun in the window and still open when its records were collected: left
    // out, not cut at the window's end (a recorded profile; 0 for a trace read from a file).
    std::int64_t scopes_left_open = 0;

    // Stores `name` once in this trace's name table (shared by its copies) and returns the
    // view events hold.
    std::string_view intern(std::string_view name);
    // The event's inputs, or nullptr.
    const EventInputs* inputs_of(const Event& e) const {
        return e.inputs >= 0 ? &inputs[static_cast<std::size_t>(e.inputs)] : nullptr;
    }
    // The event's memory and device time (zeros without memory or device events).
    EventTotals totals_of(std::size_t event) const { return totals.empty() ? EventTotals{} : totals[event]; }
    // Bytes this trace holds: events, names, inputs, totals, memory and device events.
    std::size_t footprint_bytes() const;

    // Aggregates events by name (and input shapes when asked).
    KeyAverages key_averages(const KeyAveragesOptions& options = {}) const;
    // The trace as Kineto-compatible Chrome trace JSON; trace_name overrides worker_name.
    std::string chrome_trace_json(std::string_view trace_name = {}) const;
    // Writes chrome_trace_json() to `path` atomically (temporary file, then rename).
    void export_chrome_trace(const std::filesystem::path& path) const;

    // Derives self times, memory and device time of every event from the raw lists
    // (parents, memory events, device events). Builders of traces call it once.
    void compute_attribution();
    // Sets every event's parent from the intervals, per thread, as torch.profiler
    // builds its tree: in (start, longest first) order, the enclosing open interval.
    void link_parents();

private:
    struct NameTable;
    std::shared_ptr<NameTable> names_;
};

// Reads a Chrome trace written by export_chrome_trace (or Kineto): host slices
// (cpu_op, user_annotation and other X events on host threads), nested by their
// intervals. Throws std::runtime_error naming the file and the problem.
Trace read_chrome_trace(const std::filesystem::path& path);
// The same from the text of a trace, gzipped or not; `name` appears in error messages.
Trace parse_chrome_trace(std::string_view text, const std::string& name);

}  // namespace vitals::profiler
