// Recording: label a region of code so that an active profile records it.
//
//   { VITALS_RECORD_FUNCTION("data loading"); load(); }
//
// With no profile recording, a scope costs one predictable branch. When recording, it
// appends a begin and an end record (16 bytes each: a timestamp and a name, or the
// begin's place in the thread's record stream; record_layout.hpp places the bits) to the
// calling thread's own buffer, with no lock. The end names its begin, so scopes that do
// not close in reverse order (a profile step inside a loop-body scope), or close on
// another thread, keep their times.
#pragma once

#include <atomic>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>

#include "vitals/profiler/clock.hpp"
#include "vitals/profiler/record_layout.hpp"

namespace vitals::profiler {

// The categories of Kineto's trace format that host events use.
enum class Category : std::uint8_t { cpu_op, user_annotation };

// One input of an operator as the profiler records it (with record_shapes).
struct InputMeta {
    std::span<const std::int64_t> shape;
    std::string_view dtype;  // torch's names: "float", "double", "bool", "long int"
};

namespace detail {

// Bit 0: recording; bit 1: record_shapes; bit 2: profile_memory; bit 3: CUDA activity;
// bit 4: an NVTX tool (Nsight) is attached, so scopes push NVTX ranges.
extern std::atomic<std::uint32_t> g_record_flags;
constexpr std::uint32_t kRecording = 1, kShapes = 2, kMemory = 4, kDevice = 8, kNvtx = 16;

inline bool recording() { return (g_record_flags.load(std::memory_order_relaxed) & kRecording) != 0; }
inline bool recording_memory() {
    return (g_record_flags.load(std::memory_order_relaxed) & (kRecording | kMemory)) == (kRecording | kMemory);
}

// The calling thread's place in its current chunk. Written only by its thread; the
// count is published with a release store for collectors.
struct WriteCursor {
    Record* next = nullptr;
    Record* end = nullptr;
    Record* base = nullptr;
    std::atomic<std::uint32_t>* published = nullptr;
    std::uint64_t base_index = 0;  // the index of *base in the thread's record stream
    std::uint64_t buffer_serial = 0;  // which thread buffer this is: unique in the process, from 1
};
// initial-exec: a direct TLS access (the library is linked into programs, not dlopen'ed).
// constinit: no dynamic initialisation, so no TLS wrapper call on each access.
extern constinit thread_local WriteCursor t_cursor __attribute__((tls_model("initial-exec")));

// The calling thread's cursor; every access from a program's own files goes through here.
// Under -fsanitize=null, GCC 12 tests the cursor's address with the flags left by its
// `add t_cursor@gottpoff(%rip), %reg`, and the linker's initial-exec to local-exec rewrite
// turns that add into a `lea`, which sets none: the test read stale flags and reported a
// null WriteCursor. In a sanitizer build (VITALS_SANITIZE_BUILD; define it when building a
// program of your own with GCC and -fsanitize=undefined), an empty asm, which clobbers the
// flags on x86, makes the compiler test the address itself. Elsewhere it is left out: it
// stops the address being shared between accesses, which makes a recorded scope slower.
inline WriteCursor& cursor() {
#if defined(VITALS_SANITIZE_BUILD)
    WriteCursor* c = &t_cursor;
    asm("" : "+r"(c));
    return *c;
#else
    return t_cursor;
#endif
}
// Registers the thread or moves to a fresh chunk, then appends.
std::uint64_t push_slow(std::int64_t ticks, std::uint64_t payload);

// Appends a record to the calling thread's buffer; returns its index in the thread's
// record stream (from the count it publishes: reading the cursor again afterwards would
// slow every recorded scope).
inline std::uint64_t push(std::int64_t ticks, std::uint64_t payload) {
    WriteCursor& c = cursor();
    if (c.next != c.end) [[likely]] {
        *c.next++ = Record{ticks, payload};
        const auto count = static_cast<std::uint32_t>(c.next - c.base);
        c.published->store(count, std::memory_order_release);
        return c.base_index + count - 1;
    }
    return push_slow(ticks, payload);
}

// Appends to the calling thread's buffer and returns the begin's index, which its end
// names. `name` must outlive the profile (a literal).
inline std::uint64_t record_begin(const char* name, Category category, std::int64_t ticks) {
    return push(ticks, record_layout::begin_literal(name, category == Category::user_annotation));
}
// A begin whose name is copied (dynamic names, e.g. "ProfilerStep#3").
std::uint64_t record_begin_copy(std::string_view name, Category category, std::int64_t ticks);
// The end of the scope whose begin record_begin returned `begin` on this thread.
inline void record_end(std::uint64_t begin, std::int64_t ticks) {
    push(ticks, record_layout::end(begin));
}
// The same for a scope begun on the thread whose buffer is `buffer_serial`.
void record_foreign_end(std::uint64_t buffer_serial, std::uint64_t begin, std::int64_t ticks);
// The inputs of the scope begun last on this thread.
void record_inputs(std::span<const InputMeta> inputs);
// Device work launched until end_correlation() is tagged with the scope begun last.
void begin_correlation();
void end_correlation();

// NVTX ranges, through vitals::cuda (nothing in a program without it). Called only
// by scopes begun while the flags held kNvtx.
void nvtx_push(const char* name);
void nvtx_pop();

}  // namespace detail

// Selects RecordFunction's constructor for names built at run time.
struct CopyName {
    explicit CopyName() = default;
};
inline constexpr CopyName copy_name{};

// Records the enclosing scope as an event while a profile is recording. Non-copyable.
// Any text names it: a string literal is recorded by its address (it outlives every
// profile); any other text (std::string, std::string_view, a char pointer or buffer
// built at run time, such as ("batch " + std::to_string(i)).c_str()) is copied when
// recorded, so no name can dangle.
class RecordFunction {
public:
    template <std::size_t N>
    explicit RecordFunction(const char (&literal)[N], Category category = Category::user_annotation) {
        if (const std::uint32_t flags = detail::g_record_flags.load(std::memory_order_relaxed); flags & detail::kRecording)
            [[unlikely]] {
            begin_ = detail::record_begin(literal, category, now_ticks());
            activate(literal, flags);
        }
    }
    template <std::size_t N>
    explicit RecordFunction(char (&buffer)[N], Category category = Category::user_annotation)
        : RecordFunction(copy_name, std::string_view(buffer), category) {}
    template <class Text>
        requires(std::is_convertible_v<const Text&, std::string_view> && !std::is_array_v<Text>)
    explicit RecordFunction(const Text& name, Category category = Category::user_annotation)
        : RecordFunction(copy_name, std::string_view(name), category) {}
    // A name built at run time, copied while recording (Tracy's ZoneTransientN):
    //   RecordFunction scope(copy_name, "batch " + std::to_string(i));
    RecordFunction(CopyName, std::string_view name, Category category = Category::user_annotation) {
        if (const std::uint32_t flags = detail::g_record_flags.load(std::memory_order_relaxed); flags & detail::kRecording)
            [[unlikely]] {
            begin_ = detail::record_begin_copy(name, category, now_ticks());
            if (flags & detail::kNvtx) [[unlikely]] {
                detail::nvtx_push(std::string(name).c_str());
                extras_ |= kPushedNvtx;
            }
            serial_ = detail::cursor().buffer_serial;
        }
    }
    // An operator: `describe_inputs()` (which calls detail::record_inputs) runs only when
    // the profile records shapes; with CUDA activity, its device work is correlated.
    template <class DescribeInputs>
    RecordFunction(const char* name, Category category, DescribeInputs&& describe_inputs) {
        if (const std::uint32_t flags = detail::g_record_flags.load(std::memory_order_relaxed); flags & detail::kRecording)
            [[unlikely]] {
            begin_ = detail::record_begin(name, category, now_ticks());
            activate(name, flags);
            if (flags & detail::kShapes) describe_inputs();
            if (flags & detail::kDevice) {
                detail::begin_correlation();
                extras_ |= kCorrelated;
            }
        }
    }
    ~RecordFunction() {
        if (serial_ != 0) [[unlikely]] {
            if (extras_ != 0) [[unlikely]] {
                if (extras_ & kCorrelated) detail::end_correlation();
                if (extras_ & kPushedNvtx) detail::nvtx_pop();
            }
            const std::int64_t ticks = now_ticks();
            if (serial_ == detail::cursor().buffer_serial) [[likely]] {
                detail::record_end(begin_, ticks);
            } else {
                detail::record_foreign_end(serial_, begin_, ticks);
            }
        }
    }
    RecordFunction(const RecordFunction&) = delete;
    RecordFunction& operator=(const RecordFunction&) = delete;

private:
    // What the begin did beside its record, undone at the end whatever the flags are by
    // then (one read of the flags a scope: an NVTX range pushed is always popped).
    static constexpr std::uint8_t kCorrelated = 1, kPushedNvtx = 2;

    void activate(const char* name, std::uint32_t flags) {
        if (flags & detail::kNvtx) [[unlikely]] {
            detail::nvtx_push(name);
            extras_ |= kPushedNvtx;
        }
        serial_ = detail::cursor().buffer_serial;
    }

    std::uint64_t begin_ = 0;   // the begin record's index, which the end names
    std::uint64_t serial_ = 0;  // the recording thread's buffer; 0: not recording
    std::uint8_t extras_ = 0;   // kCorrelated | kPushedNvtx
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
// Records the rest of the enclosing block as a user annotation named `name`: a literal, or
// any text built at run time (copied, see RecordFunction).
#define VITALS_RECORD_FUNCTION(name) \
    ::vitals::profiler::RecordFunction VITALS_PROFILER_CONCAT(vitals_record_function_, __COUNTER__)(name)
