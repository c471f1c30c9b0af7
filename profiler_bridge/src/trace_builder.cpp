#include "trace_builder.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <limits>
#include <string_view>
#include <unordered_map>

#include "device_activity.hpp"
#include "vitals/profiler/record_layout.hpp"

namespace vitals::profiler::detail {
namespace {

namespace layout = record_layout;

std::int64_t wall_clock_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

}  // namespace

// Rebuilds events from each thread's records: a begin opens an event, and the end that
// names it (by the begin's index in its thread's record stream) closes it, on whichever
// thread it was recorded. An end recorded by the time the records are collected counts
// with its own time, even just past the window's end; a scope still open then (one around
// the step() that closed the window, or on a thread still inside it) is left out and
// counted in Trace::scopes_left_open, never cut to the window. Ends whose begin came
// before the window are ignored. Parents follow from the intervals, as in torch
// (Trace::link_parents), so scopes that overlap without nesting keep both times.
Trace build_trace(std::vector<ThreadRecords> threads, std::vector<DeviceEvent> device,
                  std::int64_t window_start_ticks, std::int64_t window_end_ticks, const ProfileOptions& options) {
    const TickConverter clock = TickConverter::calibrated();
    Trace trace;
    trace.pid = ::getpid();
    trace.start_ns = clock.to_ns(window_start_ticks);
    trace.end_ns = clock.to_ns(window_end_ticks);
    trace.base_time_ns = wall_clock_ns() - (steady_ns() - trace.start_ns);
    trace.worker_name = options.worker_name.empty() ? default_worker_name() : options.worker_name;
    trace.profile_memory = options.profile_memory;
    trace.rank = options.rank;
    trace.world_size = options.world_size;
    constexpr std::int64_t kOpen = std::numeric_limits<std::int64_t>::min();
    std::size_t records = 0;
    for (const ThreadRecords& t : threads) records += t.records.size();
    trace.events.reserve(records / 2 + 1);

    // Per collected thread: the event each begin record opened (-1 for other records).
    std::vector<std::vector<std::int32_t>> event_at(threads.size());
    std::unordered_map<std::uint64_t, std::size_t> thread_of_serial;
    const auto close = [&](std::size_t thread, std::uint64_t begin, std::int64_t end_ns) {
        const ThreadRecords& t = threads[thread];
        if (begin < t.first_index || begin - t.first_index >= event_at[thread].size()) return;  // before the window
        const std::int32_t e = event_at[thread][begin - t.first_index];
        if (e < 0) return;
        Event& event = trace.events[static_cast<std::size_t>(e)];
        if (event.end_ns == kOpen) event.end_ns = std::max(end_ns, event.start_ns);
    };
    struct PendingEnd {
        ForeignEnd end;
        std::int64_t end_ns;
    };
    std::vector<PendingEnd> foreign_ends;
    std::int64_t next_external_id = 1;
    for (std::size_t ti = 0; ti < threads.size(); ++ti) {
        ThreadRecords& t = threads[ti];
        thread_of_serial[t.buffer_serial] = ti;
        const auto thread = static_cast<std::int32_t>(trace.threads.size());
        trace.threads.push_back({t.tid, t.thread_name});
        std::vector<std::int32_t>& at = event_at[ti];
        at.assign(t.records.size(), -1);
        std::int32_t last_begun = -1;  // inputs and correlations belong to the scope begun last
        for (std::size_t k = 0; k < t.records.size(); ++k) {
            const Record& r = t.records[k];
            const std::uint64_t value = layout::value_of(r.payload);
            switch (layout::kind_of(r.payload)) {
                case RecordKind::begin_literal:
                case RecordKind::begin_copied: {
                    Event e;
                    e.name = layout::kind_of(r.payload) == RecordKind::begin_literal
                                 ? std::string_view(layout::literal_name(r.payload))  // a literal: lives as long
                                 : trace.intern(t.names[layout::copied_name_index(r.payload)]);
                    e.category = layout::is_annotation(r.payload) ? Category::user_annotation : Category::cpu_op;
                    e.thread = thread;
                    e.start_ns = clock.to_ns(r.ticks);
                    e.end_ns = kOpen;
                    e.external_id = next_external_id++;
                    last_begun = at[k] = static_cast<std::int32_t>(trace.events.size());
                    trace.events.push_back(e);
                    break;
                }
                case RecordKind::end:
                    close(ti, value, clock.to_ns(r.ticks));
                    break;
                case RecordKind::foreign_end:
                    foreign_ends.push_back({t.foreign_ends[value], clock.to_ns(r.ticks)});
                    break;
                case RecordKind::inputs:
                    if (last_begun >= 0) {
                        trace.events[static_cast<std::size_t>(last_begun)].inputs = static_cast<std::int32_t>(trace.inputs.size());
                        trace.inputs.push_back({std::move(t.inputs[value].shapes), std::move(t.inputs[value].dtypes)});
                    }
                    break;
                case RecordKind::memory:
                    trace.memory.push_back({clock.to_ns(r.ticks), thread, t.memory[value]});
                    break;
                case RecordKind::correlation:
                    if (last_begun >= 0) trace.events[static_cast<std::size_t>(last_begun)].external_id = static_cast<std::int64_t>(value);
                    break;
            }
        }
        std::vector<Record>().swap(t.records);  // the records' memory goes as the events come
    }
    for (const PendingEnd& p : foreign_ends) {
        if (const auto found = thread_of_serial.find(p.end.buffer_serial); found != thread_of_serial.end()) {
            close(found->second, p.end.begin, p.end_ns);
        }
    }
    trace.scopes_left_open = static_cast<std::int64_t>(
        std::erase_if(trace.events, [](const Event& e) { return e.end_ns == kOpen; }));
    trace.link_parents();
    trace.device = device_activity::in_window(std::move(device), trace.start_ns, trace.end_ns);
    trace.compute_attribution();
    return trace;
}

}  // namespace vitals::profiler::detail
