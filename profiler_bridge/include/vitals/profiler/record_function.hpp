// Recording: label a region of code so that an active profile records it.
//
//   { VITALS_RECORD_FUNCTION("data loading"); load(); }
//
// With no profile recording, a scope costs one predictable branch. When recording, it
// appends a begin and an end record (16 bytes each: a timestamp and a name) to the
// calling thread's own buffer, with no lock.
#pragma once

#include <atomic>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "vitals/profiler/clock.hpp"

namespace vitals::profiler {

// The categories of Kineto's trace format that host events use.
enum class Category : std::uint8_t { cpu_op, user_annotation };

// One input of an operator as the profiler records it (with record_shapes).
struct InputMeta {
    std::span<const std::int64_t> shape;
    std::string_view dtype;  // torch's names: "float", "double", "bool", "long int"
};

namespace detail {

// Bit 0: recording; bit 1: record_shapes; bit 2: profile_memory.
extern std::atomic<std::uint32_t> g_record_flags;
constexpr std::uint32_t kRecording = 1, kShapes = 2, kMemory = 4;

inline bool recording() { return (g_record_flags.load(std::memory_order_relaxed) & kRecording) != 0; }
inline bool recording_shapes() {
    return (g_record_flags.load(std::memory_order_relaxed) & (kRecording | kShapes)) == (kRecording | kShapes);
}
inline bool recording_memory() {
    return (g_record_flags.load(std::memory_order_relaxed) & (kRecording | kMemory)) == (kRecording | kMemory);
}

// Appends to the calling thread's buffer. `name` must outlive the profile (a literal).
void record_begin(const char* name, Category category, std::int64_t ticks);
// A begin whose name is copied (dynamic names, e.g. "ProfilerStep#3").
void record_begin_copy(std::string_view name, Category category, std::int64_t ticks);
void record_end(std::int64_t ticks);
// The inputs of the scope begun last on this thread.
void record_inputs(std::span<const InputMeta> inputs);

}  // namespace detail

// Records the enclosing scope as an event while a profile is recording. Non-copyable.
class RecordFunction {
public:
    explicit RecordFunction(const char* name, Category category = Category::user_annotation) {
        if (detail::recording()) [[unlikely]] {
            detail::record_begin(name, category, now_ticks());
            active_ = true;
        }
    }
    // A name built at run time; copied only while recording.
    explicit RecordFunction(std::string_view name, Category category, int /*dynamic*/) {
        if (detail::recording()) [[unlikely]] {
            detail::record_begin_copy(name, category, now_ticks());
            active_ = true;
        }
    }
    // An operator: `describe_inputs(std::vector<InputMeta>&)` is called only when the
    // profile records shapes.
    template <class DescribeInputs>
    RecordFunction(const char* name, Category category, DescribeInputs&& describe_inputs) {
        if (detail::recording()) [[unlikely]] {
            detail::record_begin(name, category, now_ticks());
            active_ = true;
            if (detail::recording_shapes()) describe_inputs();
        }
    }
    ~RecordFunction() {
        if (active_) [[unlikely]] detail::record_end(now_ticks());
    }
    RecordFunction(const RecordFunction&) = delete;
    RecordFunction& operator=(const RecordFunction&) = delete;

private:
    bool active_ = false;
};

// Whether a profile is recording right now (for work that only makes sense then).
inline bool is_recording() { return detail::recording(); }

// Records a memory event on the calling thread while a profile with profile_memory is
// recording. Called by the kernel set's allocators.
struct MemoryRecord {
    const void* address;
    std::int64_t bytes;  // negative for a free
    std::int64_t total_allocated;
    std::int64_t total_reserved;
    std::int8_t device_type;  // 0 CPU, 1 CUDA (Kineto's numbering)
    std::int8_t device_id;
};
void record_memory(const MemoryRecord& record);

}  // namespace vitals::profiler

#define VITALS_PROFILER_CONCAT2(a, b) a##b
#define VITALS_PROFILER_CONCAT(a, b) VITALS_PROFILER_CONCAT2(a, b)
// Records the rest of the enclosing block as a user annotation named `name` (a literal).
#define VITALS_RECORD_FUNCTION(name) \
    ::vitals::profiler::RecordFunction VITALS_PROFILER_CONCAT(vitals_record_function_, __COUNTER__)(name)
