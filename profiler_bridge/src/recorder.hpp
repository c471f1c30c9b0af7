// The per-thread event buffers behind RecordFunction, and their collection. Internal.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "vitals/profiler/record_function.hpp"

namespace vitals::profiler::detail {

struct InputList {
    std::vector<std::vector<std::int64_t>> shapes;
    std::vector<std::string> dtypes;
};

// An end recorded on one thread for a scope begun on another.
struct ForeignEnd {
    std::uint64_t buffer_serial;  // the beginning thread's buffer
    std::uint64_t begin;          // the begin's index in that thread's record stream
};

// What one collection took from one thread, in order.
struct ThreadRecords {
    std::int64_t tid = 0;
    std::string thread_name;
    std::uint64_t buffer_serial = 0;
    std::uint64_t first_index = 0;  // the index of records[0] in the thread's record stream
    std::vector<Record> records;
    std::vector<std::string> names;
    std::vector<InputList> inputs;
    std::vector<MemoryRecord> memory;
    std::vector<ForeignEnd> foreign_ends;
};

// Turns recording on for every thread, with what a window records beside its scopes
// (NVTX ranges too when an NVTX tool is attached), or off.
void start_recording(bool shapes, bool memory, bool device);
void stop_recording();

// Takes (or, with keep = false, throws away) everything recorded so far by every thread.
std::vector<ThreadRecords> collect_all(bool keep);

// Caps the records a window may hold (0: none): past it, recording stops and
// cap_reached() says so. Reset by collect_all.
void set_record_cap(std::int64_t records);
bool cap_reached();

// Makes sure at least `records` records' worth of buffer memory is allocated and touched,
// and the calling thread registered, before a window records, so that neither lands
// inside a recorded scope.
void reserve_records(std::int64_t records);

// Memory held by the buffers right now (for the bounded-memory tests and benchmarks).
std::size_t buffered_bytes();

}  // namespace vitals::profiler::detail
