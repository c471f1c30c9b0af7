// Kineto-compatible Chrome trace JSON, written directly (one event a line) for speed:
// exporting a trace must not take longer than recording it did.
#include <fmt/compile.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <unordered_set>
#include <fstream>
#include <iterator>
#include <set>

#include "vitals/atomic_file.hpp"
#include "vitals/profiler/trace.hpp"

namespace vitals::profiler {
namespace {

using Buffer = fmt::memory_buffer;

// A JSON string: quotes, backslashes and control characters escaped; bytes that are not
// valid UTF-8 become U+FFFD, so any name gives a file every JSON reader accepts.
// Printable ASCII without quotes or backslashes: a JSON string as it is.
bool is_plain(std::string_view s) {
    return std::all_of(s.begin(), s.end(), [](char ch) {
        const auto c = static_cast<unsigned char>(ch);
        return c >= 0x20 && c < 0x80 && c != '"' && c != '\\';
    });
}

void append_json_string(Buffer& out, std::string_view s) {
    out.push_back('"');
    if (is_plain(s)) {  // the common case: copy as is
        out.append(s.data(), s.data() + s.size());
        out.push_back('"');
        return;
    }
    const auto* p = reinterpret_cast<const unsigned char*>(s.data());
    const auto* end = p + s.size();
    while (p < end) {
        const unsigned char c = *p;
        if (c == '"' || c == '\\') {
            out.push_back('\\');
            out.push_back(static_cast<char>(c));
            ++p;
        } else if (c < 0x20) {
            switch (c) {
                case '\n': fmt::format_to(std::back_inserter(out), "\\n"); break;
                case '\t': fmt::format_to(std::back_inserter(out), "\\t"); break;
                case '\r': fmt::format_to(std::back_inserter(out), "\\r"); break;
                default: fmt::format_to(std::back_inserter(out), "\\u{:04x}", c);
            }
            ++p;
        } else if (c < 0x80) {
            out.push_back(static_cast<char>(c));
            ++p;
        } else {
            // Length of a well-formed UTF-8 sequence starting here, or 0.
            int length = 0;
            if (c >= 0xc2 && c <= 0xdf) length = 2;
            else if (c >= 0xe0 && c <= 0xef) length = 3;
            else if (c >= 0xf0 && c <= 0xf4) length = 4;
            bool ok = length > 0 && end - p >= length;
            for (int i = 1; ok && i < length; ++i) ok = (p[i] & 0xc0) == 0x80;
            if (ok && length == 3) ok = !(c == 0xe0 && p[1] < 0xa0) && !(c == 0xed && p[1] >= 0xa0);
            if (ok && length == 4) ok = !(c == 0xf0 && p[1] < 0x90) && !(c == 0xf4 && p[1] >= 0x90);
            if (ok) {
                out.append(reinterpret_cast<const char*>(p), reinterpret_cast<const char*>(p) + length);
                p += length;
            } else {
                fmt::format_to(std::back_inserter(out), "\\ufffd");
                ++p;
            }
        }
    }
    out.push_back('"');
}

void put(Buffer& out, std::string_view s) { out.append(s.data(), s.data() + s.size()); }

void put_int(Buffer& out, std::int64_t value) {
    const fmt::format_int digits(value);
    out.append(digits.data(), digits.data() + digits.size());
}

// Writers into room already reserved: a host event is most of a trace, so its fields are
// stored directly, with no format parsing and no per-field bounds checks.
template <std::size_t N>
char* write_text(char* p, const char (&text)[N]) {
    std::memcpy(p, text, N - 1);
    return p + N - 1;
}

// Decimal digits in place, by fmt's compiled formatting (two digits a step, the length
// from a leading-zero count), with no buffer in between.
char* write_int(char* p, std::int64_t value) { return fmt::format_to(p, FMT_COMPILE("{}"), value); }

// Microseconds from integer nanoseconds, exact, without trailing zeros ("12.34", "7").
char* write_micros(char* p, std::int64_t ns) {
    if (ns < 0) {
        *p++ = '-';
        ns = -ns;
    }
    p = write_int(p, ns / 1000);
    int frac = static_cast<int>(ns % 1000);
    if (frac == 0) return p;
    int digits = 3;
    while (frac % 10 == 0) {
        frac /= 10;
        --digits;
    }
    *p++ = '.';
    for (int i = digits - 1; i >= 0; --i) {
        p[i] = static_cast<char>('0' + frac % 10);
        frac /= 10;
    }
    return p + digits;
}

// The same, for fmt::format_to arguments.
struct Micros {
    std::int64_t ns;
};

}  // namespace
}  // namespace vitals::profiler

template <>
struct fmt::formatter<vitals::profiler::Micros> {
    constexpr auto parse(format_parse_context& ctx) { return ctx.begin(); }
    template <class Context>
    auto format(vitals::profiler::Micros m, Context& ctx) const {
        const std::int64_t magnitude = m.ns < 0 ? -m.ns : m.ns;
        return fmt::format_to(ctx.out(), "{}{}.{:03}", m.ns < 0 ? "-" : "", magnitude / 1000, magnitude % 1000);
    }
};

namespace vitals::profiler {
namespace {

std::string program_name() {
    std::ifstream comm("/proc/self/comm");
    std::string name;
    std::getline(comm, name);
    return name.empty() ? "vitals" : name;
}

const char* device_category(DeviceEvent::Kind k) {
    switch (k) {
        case DeviceEvent::Kind::kernel: return "kernel";
        case DeviceEvent::Kind::memcpy: return "gpu_memcpy";
        case DeviceEvent::Kind::memset: return "gpu_memset";
        case DeviceEvent::Kind::runtime: return "cuda_runtime";
    }
    return "kernel";
}


// Above this, what is formatted goes to `write` (when streaming to a file), so a trace of
// millions of events never sits in memory whole.
constexpr std::size_t kFlushBytes = std::size_t{1} << 20;

void write_chrome_trace(const Trace& trace, std::string_view trace_name, Buffer& out, const WritePiece* write) {
    const auto flush = [&] {
        if (write == nullptr) return;
        (*write)(std::string_view(out.data(), out.size()));
        out.clear();
    };
    const auto& threads = trace.threads;
    const auto& events = trace.events;
    const auto& memory = trace.memory;
    const auto& device = trace.device;
    const std::int64_t pid = trace.pid, start_ns = trace.start_ns, base_time_ns = trace.base_time_ns;
    const std::string& worker_name = trace.worker_name;
    const int rank = trace.rank, world_size = trace.world_size;
    if (write == nullptr) out.reserve(256 + 110 * (events.size() + memory.size() + 2 * device.size() + threads.size()));
    auto it = fmt::appender(out);
    const auto us = [&](std::int64_t ns) { return Micros{ns - start_ns}; };
    const auto dur = [](std::int64_t ns) { return Micros{ns}; };
    fmt::format_to(it, "{{\n  \"schemaVersion\": 1,\n  \"deviceProperties\": [],\n");
    if (rank >= 0) {
        fmt::format_to(it, "  \"distributedInfo\": {{\"backend\": \"\", \"rank\": {}, \"world_size\": {}}},\n", rank,
                       world_size);
    }
    fmt::format_to(it, "  \"traceName\": ");
    append_json_string(out, trace_name.empty() ? std::string_view(worker_name) : trace_name);
    fmt::format_to(it, ",\n  \"displayTimeUnit\": \"ms\",\n  \"baseTimeNanoseconds\": {},\n  \"traceEvents\": [\n",
                   base_time_ns);
    bool first = true;
    const auto next = [&] {
        if (!first) put(out, ",\n");
        first = false;
    };

    // TensorBoard's profiler plugin spans a trace without ProfilerStep#N by its operators
    // alone, and drops annotations: with no operator at all its total wraps around to
    // -18446744073709551615us. In such a trace (annotations only) the outermost ones are
    // written as operators, so that the span is theirs.
    const bool annotations_only = std::none_of(events.begin(), events.end(), [](const Event& e) {
        return e.category == Category::cpu_op || e.name.rfind("ProfilerStep#", 0) == 0;
    });
    // "External id" links an event to the device work it launched: written for operators
    // (as torch does) and for annotations that launched device work; an annotation on
    // its own (written as an operator or not) has nothing to link, and leaving it out
    // keeps a host event under 100 bytes.
    std::unordered_set<std::int64_t> launched;
    for (const DeviceEvent& d : device) {
        if (d.external_id != 0) launched.insert(d.external_id);
    }
    constexpr std::size_t kFixedRoom = 256;  // every field of a host event but its name and inputs
    for (const Event& e : events) {
        if (out.size() >= kFlushBytes) flush();
        next();
        const bool as_operator = e.category == Category::cpu_op || (annotations_only && e.parent < 0);
        const EventInputs* in = trace.inputs_of(e);
        std::size_t at = out.size();
        out.resize(at + kFixedRoom + e.name.size());
        char* p = out.data() + at;
        p = as_operator ? write_text(p, R"({"ph":"X","cat":"cpu_op","name":")")
                        : write_text(p, R"({"ph":"X","cat":"user_annotation","name":")");
        if (is_plain(e.name)) {  // the common case: copied in place, no second resize
            for (const char c : e.name) *p++ = c;
            *p++ = '"';
        } else {
            out.resize(static_cast<std::size_t>(p - out.data()) - 1);  // append_json_string opens the quote itself
            append_json_string(out, e.name);
            at = out.size();
            out.resize(at + kFixedRoom);
            p = out.data() + at;
        }
        p = write_text(p, R"(,"pid":)");
        p = write_int(p, pid);
        p = write_text(p, R"(,"tid":)");
        p = write_int(p, threads[static_cast<std::size_t>(e.thread)].tid);
        p = write_text(p, R"(,"ts":)");
        p = write_micros(p, e.start_ns - start_ns);
        p = write_text(p, R"(,"dur":)");
        p = write_micros(p, e.duration_ns());
        const bool linked = e.category == Category::cpu_op || (!launched.empty() && launched.contains(e.external_id));
        if (linked || in != nullptr) {
            p = write_text(p, R"(,"args":{)");
            if (linked) {
                p = write_text(p, R"("External id":)");
                p = write_int(p, e.external_id);
            }
            if (in != nullptr) {
                if (linked) *p++ = ',';
                out.resize(static_cast<std::size_t>(p - out.data()));
                put(out, R"("Input Dims":[)");
                for (std::size_t i = 0; i < in->shapes.size(); ++i) {
                    if (i) out.push_back(',');
                    out.push_back('[');
                    for (std::size_t d = 0; d < in->shapes[i].size(); ++d) {
                        if (d) out.push_back(',');
                        put_int(out, in->shapes[i][d]);
                    }
                    out.push_back(']');
                }
                put(out, R"(],"Input type":[)");
                for (std::size_t i = 0; i < in->types.size(); ++i) {
                    if (i) out.push_back(',');
                    append_json_string(out, in->types[i]);
                }
                out.push_back(']');
                at = out.size();
                out.resize(at + 8);
                p = out.data() + at;
            }
            *p++ = '}';
        }
        *p++ = '}';
        out.resize(static_cast<std::size_t>(p - out.data()));
    }
    for (const MemoryEvent& m : memory) {
        if (out.size() >= kFlushBytes) flush();
        next();
        fmt::format_to(it,
                       "{{\"ph\":\"i\",\"cat\":\"cpu_instant_event\",\"s\":\"t\",\"name\":\"[memory]\","
                       "\"pid\":{},\"tid\":{},\"ts\":{},\"args\":{{\"Addr\":{},\"Bytes\":{}, "
                       "\"Total Allocated\":{},\"Total Reserved\":{},\"Device Type\":{},\"Device Id\":{}}}}}",
                       pid, threads[static_cast<std::size_t>(m.thread)].tid, us(m.ts_ns),
                       reinterpret_cast<std::uintptr_t>(m.record.address), m.record.bytes, m.record.total_allocated,
                       m.record.total_reserved, m.record.device_type, m.record.device_id);
    }
    std::set<std::pair<int, std::int64_t>> streams;
    for (const DeviceEvent& d : device) {
        if (out.size() >= kFlushBytes) flush();
        next();
        const bool runtime = d.kind == DeviceEvent::Kind::runtime;
        const std::int64_t event_pid = runtime ? pid : d.device;
        const std::int64_t event_tid = runtime ? d.host_tid : d.stream;
        if (!runtime) streams.insert({d.device, d.stream});
        fmt::format_to(it, "{{\"ph\":\"X\",\"cat\":\"{}\",\"name\":", device_category(d.kind));
        append_json_string(out, d.name);
        fmt::format_to(it, ",\"pid\":{},\"tid\":{},\"ts\":{},\"dur\":{},\"args\":{{\"External id\":{}, "
                           "\"correlation\": {}",
                       event_pid, event_tid, us(d.start_ns), dur(d.end_ns - d.start_ns),
                       d.external_id, d.correlation);
        if (d.kind == DeviceEvent::Kind::kernel) {
            fmt::format_to(it, ", \"stream\": {}, \"device\": {}, \"grid\": [{}, {}, {}], \"block\": [{}, {}, {}]",
                           d.stream, d.device, d.grid[0], d.grid[1], d.grid[2], d.block[0], d.block[1], d.block[2]);
        } else if (!runtime) {
            const double seconds = static_cast<double>(d.end_ns - d.start_ns) * 1e-9;
            fmt::format_to(it, ", \"stream\": {}, \"device\": {}, \"bytes\": {}, \"memory bandwidth (GB/s)\": {}",
                           d.stream, d.device, d.bytes, seconds > 0 ? static_cast<double>(d.bytes) / seconds / 1e9 : 0.0);
        }
        fmt::format_to(it, "}}}}");
        // Launch-to-kernel arrows: start on the runtime call, finish on the device work.
        if (d.correlation != 0) {
            next();
            fmt::format_to(it,
                           "{{\"ph\":\"{}\", \"id\": {},\"pid\":{},\"tid\":{},\"ts\":{}, \"cat\":\"ac2g\", "
                           "\"name\":\"ac2g\"{}}}",
                           runtime ? "s" : "f", d.correlation, event_pid, event_tid, us(d.start_ns),
                           runtime ? "" : ", \"bp\": \"e\"");
        }
    }
    next();
    fmt::format_to(it, "{{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":{},\"tid\":0,\"args\":{{\"name\":", pid);
    append_json_string(out, program_name());
    fmt::format_to(it, "}}}}");
    for (const ThreadInfo& t : threads) {
        next();
        fmt::format_to(it, "{{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":{},\"tid\":{},\"args\":{{\"name\":",
                       pid, t.tid);
        append_json_string(out, t.name.empty() ? fmt::format("thread {}", t.tid) : t.name);
        fmt::format_to(it, "}}}}");
    }
    for (const auto& [dev, stream] : streams) {
        next();
        fmt::format_to(it,
                       "{{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":{0},\"tid\":0,\"args\":{{\"name\":"
                       "\"GPU {0}\"}}}},\n  {{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":{0},\"tid\":{1}, "
                       "\"args\": {{\"name\":\"stream {1}\"}}}}",
                       dev, stream);
    }
    fmt::format_to(it, "\n  ]\n}}\n");
    flush();
}

}  // namespace

std::string Trace::chrome_trace_json(std::string_view trace_name) const {
    Buffer out;
    write_chrome_trace(*this, trace_name, out, nullptr);
    return fmt::to_string(out);
}

void Trace::export_chrome_trace(const std::filesystem::path& path) const {
    write_file_atomically_streamed(path, [&](const WritePiece& write) {
        Buffer out;
        write_chrome_trace(*this, {}, out, &write);
    });
}

}  // namespace vitals::profiler
