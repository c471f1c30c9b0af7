// Per-thread buffers: the writer appends records to its current chunk without a lock
// and publishes the count with a release store; a collector, under the buffer's mutex,
// takes full chunks and the published part of the current one. Records that refer to
// side data (copied names, inputs, memory) are pushed under the same mutex as their data,
// so a collection sees both or neither.
#include "recorder.hpp"
#include "vitals/profiler/profile.hpp"

#include "device_activity.hpp"

#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

namespace vitals::profiler::detail {

std::atomic<std::uint32_t> g_record_flags{0};
constinit thread_local WriteCursor t_cursor;

namespace {

constexpr std::size_t kChunkRecords = 4096;  // 64 KiB

struct Chunk {
    std::array<Record, kChunkRecords> records;
    std::atomic<std::uint32_t> size{0};
    std::uint32_t consumed = 0;  // by the collector, under the buffer's mutex
};

// The window's record cap, counted in whole chunks when a thread starts a new one (off
// the hot path).
std::atomic<std::int64_t> g_chunk_cap{0};
std::atomic<std::int64_t> g_chunks_started{0};
std::atomic<bool> g_cap_reached{false};

// Counts a chunk a thread starts (its first one too) against the cap; over it, recording
// stops for everyone (what is already recorded stays).
void count_started_chunk() {
    const std::int64_t cap = g_chunk_cap.load(std::memory_order_relaxed);
    if (cap > 0 && g_chunks_started.fetch_add(1, std::memory_order_relaxed) + 1 > cap) {
        g_record_flags.fetch_and(~kRecording, std::memory_order_relaxed);
        g_cap_reached.store(true, std::memory_order_relaxed);
    }
}

// Chunks handed back by collections, for reuse: a fresh chunk costs a page fault per
// 4 KiB on first touch, which would land inside recorded scopes.
class ChunkPool {
public:
    static constexpr std::size_t kMaxPooled = 1024;  // 64 MiB

    // Pre-faults chunks until `chunks` are free (within kMaxPooled).
    void reserve(std::size_t chunks) {
        chunks = std::min(chunks, kMaxPooled);
        for (;;) {
            {
                std::lock_guard lock(mutex_);
                if (free_.size() >= chunks) return;
            }
            auto* c = new Chunk;
            std::memset(static_cast<void*>(c->records.data()), 0, sizeof c->records);  // the page faults, now
            give(c);
        }
    }

    Chunk* take() {
        {
            std::lock_guard lock(mutex_);
            if (!free_.empty()) {
                Chunk* c = free_.back();
                free_.pop_back();
                c->size.store(0, std::memory_order_relaxed);
                c->consumed = 0;
                return c;
            }
        }
        return new Chunk;
    }

    void give(Chunk* c) {
        {
            std::lock_guard lock(mutex_);
            if (free_.size() < kMaxPooled) {
                free_.push_back(c);
                return;
            }
        }
        delete c;
    }

private:
    std::mutex mutex_;
    std::vector<Chunk*> free_;
};

// Never destroyed: threads may record during exit. Replaced (and the old one leaked) in a
// forked child, where another thread may have held its mutex at the fork.
ChunkPool*& chunk_pool_slot() {
    static ChunkPool* pool = new ChunkPool;
    return pool;
}
ChunkPool& chunk_pool() { return *chunk_pool_slot(); }

// The calling thread's name where it has one of its own. A new thread inherits its
// creator's name, so one equal to the main thread's (the program's) is no name: the trace
// then says "thread N". The main thread keeps the program's name.
std::string own_thread_name(std::int64_t tid) {
    char name[64] = {};
    if (pthread_getname_np(pthread_self(), name, sizeof name) != 0) return "";
    const std::int64_t pid = ::getpid();
    if (tid == pid) return name;
    std::ifstream main_comm("/proc/self/task/" + std::to_string(pid) + "/comm");
    std::string main_name;
    std::getline(main_comm, main_name);
    return main_name == name ? "" : name;
}

std::atomic<std::uint64_t> g_next_buffer_serial{1};

class ThreadBuffer {
public:
    ThreadBuffer()
        : current_(chunk_pool().take()),
          serial_(g_next_buffer_serial.fetch_add(1, std::memory_order_relaxed)),
          tid_(static_cast<std::int64_t>(::syscall(SYS_gettid))),
          thread_name_(own_thread_name(tid_)) {
        count_started_chunk();  // a thread's first chunk counts too: 10,000 short threads are 10,000 chunks
    }
    ~ThreadBuffer() {
        chunk_pool().give(current_);
        for (Chunk* c : full_) chunk_pool().give(c);
    }

    // Writer only: points the thread's cursor at the current chunk.
    void attach_cursor() {
        t_cursor.base = current_->records.data();
        t_cursor.next = t_cursor.base + current_->size.load(std::memory_order_relaxed);
        t_cursor.end = t_cursor.base + kChunkRecords;
        t_cursor.published = &current_->size;
        t_cursor.base_index = current_base_index_;
        t_cursor.buffer_serial = serial_;
    }

    // Writer only: the current chunk is full.
    void roll() {
        count_started_chunk();
        std::lock_guard lock(mutex_);
        full_.push_back(current_);
        current_ = chunk_pool().take();
        current_base_index_ += kChunkRecords;
        attach_cursor();
    }

    // Writer only: side data and the record that refers to it, atomically for collectors;
    // encode(index) is the record's payload for the side data's index. Returns the
    // record's index in the thread's record stream.
    template <class Table, class Value, class Encode>
    std::uint64_t push_with(Table ThreadRecords::*table, Value&& value, std::int64_t ticks, Encode encode) {
        if (t_cursor.next == t_cursor.end) roll();  // room first: roll() takes the mutex too
        std::lock_guard lock(mutex_);
        auto& side = pending_.*table;
        side.push_back(std::forward<Value>(value));
        return detail::push(ticks, encode(side.size() - 1));
    }
    // The same for a record of `kind` that holds nothing but the index.
    template <class Table, class Value>
    void push_side(Table ThreadRecords::*table, Value&& value, RecordKind kind, std::int64_t ticks) {
        push_with(table, std::forward<Value>(value), ticks,
                  [kind](std::uint64_t index) { return record_layout::side(kind, index); });
    }

    void collect(ThreadRecords& out, bool keep) {
        std::lock_guard lock(mutex_);
        out.tid = tid_;
        out.thread_name = thread_name_;
        out.buffer_serial = serial_;
        out.first_index = next_index_;
        for (Chunk* c : full_) {
            take(*c, c->size.load(std::memory_order_acquire), out, keep);
            chunk_pool().give(c);
        }
        full_.clear();
        take(*current_, current_->size.load(std::memory_order_acquire), out, keep);
        if (keep) {
            out.names = std::move(pending_.names);
            out.inputs = std::move(pending_.inputs);
            out.memory = std::move(pending_.memory);
            out.foreign_ends = std::move(pending_.foreign_ends);
        }
        pending_ = ThreadRecords{};
    }

    std::size_t bytes() {
        std::lock_guard lock(mutex_);
        return (full_.size() + 1) * sizeof(Chunk);
    }

private:
    void take(Chunk& c, std::uint32_t size, ThreadRecords& out, bool keep) {
        if (keep) out.records.insert(out.records.end(), c.records.begin() + c.consumed, c.records.begin() + size);
        next_index_ += size - c.consumed;
        c.consumed = size;
    }

    Chunk* current_;
    std::uint64_t serial_;
    std::uint64_t current_base_index_ = 0;  // writer only: the index of current_'s first record
    std::uint64_t next_index_ = 0;          // collector only (under mutex_): the first record not collected
    std::mutex mutex_;
    std::vector<Chunk*> full_;
    ThreadRecords pending_;  // side data not yet collected
    std::int64_t tid_;
    std::string thread_name_;
};

struct Registry {
    std::mutex mutex;
    std::vector<std::shared_ptr<ThreadBuffer>> buffers;
};

void after_fork_in_child();

// Never destroyed, replaced in a forked child, as the chunk pool.
Registry*& registry_slot() {
    static Registry* r = [] {
        ::pthread_atfork(nullptr, nullptr, after_fork_in_child);
        return new Registry;
    }();
    return r;
}
Registry& registry() { return *registry_slot(); }

// initial-exec: a direct TLS access, not a __tls_get_addr call per record (the library is
// linked into executables, not dlopen'ed).
__attribute__((tls_model("initial-exec"))) thread_local ThreadBuffer* t_buffer = nullptr;
// Keeps the buffer registered after its thread exits, so no event is lost.
thread_local std::shared_ptr<ThreadBuffer> t_buffer_owner;

ThreadBuffer& register_thread() {
    auto buffer = std::make_shared<ThreadBuffer>();
    {
        std::lock_guard lock(registry().mutex);
        registry().buffers.push_back(buffer);
    }
    t_buffer_owner = buffer;
    t_buffer = buffer.get();
    buffer->attach_cursor();
    return *buffer;
}

// A forked child has only the forking thread; the other threads' buffers, and any mutex
// one of them held at the fork, are left behind (leaked, never locked again): the child
// starts with empty, unlocked state and recording off. A profile that was running stops
// in the child with whatever the child recorded (nothing, unless it starts anew).
void after_fork_in_child() {
    g_record_flags.store(0, std::memory_order_relaxed);
    registry_slot() = new Registry;
    chunk_pool_slot() = new ChunkPool;
    new std::shared_ptr<ThreadBuffer>(std::move(t_buffer_owner));  // leaked: its destructor would lock
    t_buffer = nullptr;
    t_cursor = WriteCursor{};
    g_chunks_started.store(0, std::memory_order_relaxed);
    g_cap_reached.store(false, std::memory_order_relaxed);
}

inline ThreadBuffer& my_buffer() {
    if (t_buffer != nullptr) [[likely]] return *t_buffer;
    return register_thread();
}

}  // namespace

std::uint64_t push_slow(std::int64_t ticks, std::uint64_t payload) {
    if (t_buffer == nullptr) {
        register_thread();
    } else {
        t_buffer->roll();
    }
    return push(ticks, payload);
}

std::uint64_t record_begin_copy(std::string_view name, Category category, std::int64_t ticks) {
    const bool annotation = category == Category::user_annotation;
    return my_buffer().push_with(&ThreadRecords::names, std::string(name), ticks, [annotation](std::uint64_t index) {
        return record_layout::begin_copied(index, annotation);
    });
}

void record_foreign_end(std::uint64_t buffer_serial, std::uint64_t begin, std::int64_t ticks) {
    my_buffer().push_side(&ThreadRecords::foreign_ends, ForeignEnd{buffer_serial, begin}, RecordKind::foreign_end, ticks);
}

void record_inputs(std::span<const InputMeta> inputs) {
    InputList list;
    for (const InputMeta& in : inputs) {
        list.shapes.emplace_back(in.shape.begin(), in.shape.end());
        list.dtypes.emplace_back(in.dtype);
    }
    my_buffer().push_side(&ThreadRecords::inputs, std::move(list), RecordKind::inputs, now_ticks());
}

namespace {
// Above any sequential id a trace assigns, so both kinds of id can share "External id".
std::atomic<std::uint64_t> g_next_correlation{std::uint64_t{1} << 40};
}  // namespace

void begin_correlation() {
    const std::uint64_t id = g_next_correlation.fetch_add(1, std::memory_order_relaxed);
    push(now_ticks(), record_layout::correlation(id));
    device_activity::push_external_id(id);
}

void end_correlation() { device_activity::pop_external_id(); }

namespace {
// Nsight tools load their NVTX handler through this variable; without one, NVTX calls
// would cost an indirect call each and show nothing.
bool nvtx_tool_attached() {
    static const bool attached = std::getenv("NVTX_INJECTION64_PATH") != nullptr;
    return attached;
}
}  // namespace

void start_recording(bool shapes, bool memory, bool device) {
    const std::uint32_t flags = kRecording | (shapes ? kShapes : 0) | (memory ? kMemory : 0) | (device ? kDevice : 0) |
                                (nvtx_tool_attached() ? kNvtx : 0);
    g_record_flags.store(flags, std::memory_order_release);
}

void stop_recording() { g_record_flags.store(0, std::memory_order_release); }

void set_record_cap(std::int64_t records) {
    g_chunk_cap.store(records <= 0 ? 0 : (records + kChunkRecords - 1) / static_cast<std::int64_t>(kChunkRecords),
                      std::memory_order_relaxed);
}

bool cap_reached() { return g_cap_reached.load(std::memory_order_relaxed); }

void reserve_records(std::int64_t records) {
    (void)my_buffer();  // the starting thread's registration is not timed inside its first scope
    if (records <= 0) return;
    chunk_pool().reserve(static_cast<std::size_t>((records + kChunkRecords - 1) / static_cast<std::int64_t>(kChunkRecords)));
}

std::vector<ThreadRecords> collect_all(bool keep) {
    g_chunks_started.store(0, std::memory_order_relaxed);
    g_cap_reached.store(false, std::memory_order_relaxed);
    std::vector<std::shared_ptr<ThreadBuffer>> buffers;
    {
        std::lock_guard lock(registry().mutex);
        buffers = registry().buffers;
        // Buffers of exited threads are dropped once emptied below (only we hold them then).
        std::erase_if(registry().buffers, [](const auto& b) { return b.use_count() == 2; });
    }
    std::vector<ThreadRecords> out;
    for (const auto& buffer : buffers) {
        ThreadRecords records;
        buffer->collect(records, keep);
        if (keep && !records.records.empty()) out.push_back(std::move(records));
    }
    return out;
}

std::size_t buffered_bytes() {
    std::vector<std::shared_ptr<ThreadBuffer>> buffers;
    {
        std::lock_guard lock(registry().mutex);
        buffers = registry().buffers;
    }
    std::size_t total = 0;
    for (const auto& b : buffers) total += b->bytes();
    return total;
}

}  // namespace vitals::profiler::detail

namespace vitals::profiler {

void record_memory(const MemoryRecord& record) {
    if (!detail::recording_memory()) return;
    detail::my_buffer().push_side(&detail::ThreadRecords::memory, record, detail::RecordKind::memory, now_ticks());
}

std::size_t recorder_memory_bytes() { return detail::buffered_bytes(); }

}  // namespace vitals::profiler
