#include "vitals/profiler/trace.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <deque>
#include <map>
#include <numeric>
#include <tuple>
#include <unordered_map>
#include <unordered_set>


namespace vitals::profiler {
namespace {

// Innermost event of `thread` containing ts, or -1. `by_start` lists that thread's
// events in start order.
int enclosing_event(const std::vector<Event>& events, const std::vector<int>& by_start, std::int64_t ts) {
    auto it = std::upper_bound(by_start.begin(), by_start.end(), ts,
                               [&](std::int64_t t, int e) { return t < events[static_cast<std::size_t>(e)].start_ns; });
    if (it == by_start.begin()) return -1;
    int e = *(it - 1);
    while (e >= 0 && !(ts < events[static_cast<std::size_t>(e)].end_ns)) e = events[static_cast<std::size_t>(e)].parent;
    return e;
}

const std::vector<std::vector<std::int64_t>> kNoShapes;

std::string shapes_string(const std::vector<std::vector<std::int64_t>>& shapes) {
    std::string out = "[";
    for (std::size_t i = 0; i < shapes.size(); ++i) {
        if (i) out += ", ";
        out += fmt::format("[{}]", fmt::join(shapes[i], ", "));
    }
    return out + "]";
}

// Each thread's events in start order.
std::vector<std::vector<int>> events_by_thread(const std::vector<Event>& events, std::size_t threads) {
    std::vector<std::vector<int>> by_thread(threads);
    for (std::size_t i = 0; i < events.size(); ++i) by_thread[static_cast<std::size_t>(events[i].thread)].push_back(static_cast<int>(i));
    const auto by_start = [&](int a, int b) {
        return events[static_cast<std::size_t>(a)].start_ns < events[static_cast<std::size_t>(b)].start_ns;
    };
    for (auto& list : by_thread) {
        if (!std::is_sorted(list.begin(), list.end(), by_start)) std::stable_sort(list.begin(), list.end(), by_start);
    }
    return by_thread;
}

}  // namespace

// Each name once; a deque, so the views handed out stay valid as it grows.
struct Trace::NameTable {
    std::deque<std::string> names;
    std::unordered_set<std::string_view> index;
};

std::string_view Trace::intern(std::string_view name) {
    if (!names_) names_ = std::make_shared<NameTable>();
    if (const auto found = names_->index.find(name); found != names_->index.end()) return *found;
    const std::string_view stored = names_->names.emplace_back(name);
    names_->index.insert(stored);
    return stored;
}

std::size_t Trace::footprint_bytes() const {
    std::size_t bytes = events.capacity() * sizeof(Event) + totals.capacity() * sizeof(EventTotals) +
                        memory.capacity() * sizeof(MemoryEvent) + device.capacity() * sizeof(DeviceEvent) +
                        threads.capacity() * sizeof(ThreadInfo);
    for (const EventInputs& in : inputs) {
        bytes += sizeof in;
        for (const auto& shape : in.shapes) bytes += sizeof shape + shape.capacity() * sizeof(std::int64_t);
        for (const auto& type : in.types) bytes += sizeof type + type.capacity();
    }
    if (names_) {
        for (const std::string& name : names_->names) bytes += sizeof name + name.capacity();
        bytes += names_->index.size() * (sizeof(std::string_view) + 2 * sizeof(void*));
    }
    return bytes;
}

void Trace::link_parents() {
    // Each thread's events in (start, longest first) order: the order a recorded trace has
    // already, so the sort is skipped then.
    const auto before = [&](int a, int b) {
        const Event &x = events[static_cast<std::size_t>(a)], &y = events[static_cast<std::size_t>(b)];
        return x.start_ns != y.start_ns ? x.start_ns < y.start_ns : x.end_ns > y.end_ns;
    };
    std::vector<std::vector<int>> by_thread(threads.size());
    for (std::size_t i = 0; i < events.size(); ++i) {
        const auto thread = static_cast<std::size_t>(events[i].thread);
        if (thread >= by_thread.size()) by_thread.resize(thread + 1);
        by_thread[thread].push_back(static_cast<int>(i));
    }
    std::vector<int> open;
    for (auto& order : by_thread) {
        if (!std::is_sorted(order.begin(), order.end(), before)) std::stable_sort(order.begin(), order.end(), before);
        open.clear();
        for (int i : order) {
            Event& e = events[static_cast<std::size_t>(i)];
            while (!open.empty()) {
                const Event& top = events[static_cast<std::size_t>(open.back())];
                if (e.start_ns >= top.end_ns || e.end_ns > top.end_ns) {
                    open.pop_back();
                } else {
                    break;
                }
            }
            e.parent = open.empty() ? -1 : open.back();
            open.push_back(i);
        }
    }
}

void Trace::compute_attribution() {
    totals.clear();
    if (memory.empty() && device.empty()) return;
    totals.assign(events.size(), EventTotals{});
    const std::vector<std::vector<int>> by_thread = events_by_thread(events, threads.size());
    // Memory: to the innermost enclosing event (self) and all its ancestors (total).
    for (const MemoryEvent& m : memory) {
        int e = enclosing_event(events, by_thread[static_cast<std::size_t>(m.thread)], m.ts_ns);
        const bool cuda = m.record.device_type == 1;
        if (e >= 0) (cuda ? totals[static_cast<std::size_t>(e)].self_cuda_memory : totals[static_cast<std::size_t>(e)].self_cpu_memory) += m.record.bytes;
        for (; e >= 0; e = events[static_cast<std::size_t>(e)].parent) {
            (cuda ? totals[static_cast<std::size_t>(e)].cuda_memory : totals[static_cast<std::size_t>(e)].cpu_memory) += m.record.bytes;
        }
    }
    // Device time: to the launching event (self) and its ancestors (total).
    if (device.empty()) return;
    std::unordered_map<std::int64_t, int> by_external_id;
    for (std::size_t i = 0; i < events.size(); ++i) by_external_id[events[i].external_id] = static_cast<int>(i);
    for (const DeviceEvent& d : device) {
        if (d.kind == DeviceEvent::Kind::runtime) continue;
        const auto found = by_external_id.find(d.external_id);
        if (d.external_id == 0 || found == by_external_id.end()) continue;
        int e = found->second;
        totals[static_cast<std::size_t>(e)].self_cuda_time_ns += d.end_ns - d.start_ns;
        for (; e >= 0; e = events[static_cast<std::size_t>(e)].parent) {
            totals[static_cast<std::size_t>(e)].cuda_time_ns += d.end_ns - d.start_ns;
        }
    }
}

KeyAverages Trace::key_averages(const KeyAveragesOptions& options) const {
    // Direct children's durations, for self time (parent minus direct children).
    std::vector<std::int64_t> children_ns(events.size(), 0);
    for (const Event& e : events) {
        if (e.parent >= 0) children_ns[static_cast<std::size_t>(e.parent)] += e.duration_ns();
    }
    // Rows in the order their first event starts, across threads and devices (torch sorts
    // its event list by start, then longest first).
    enum class Source { host, device, memory };
    struct Item {
        std::int64_t start, end;
        Source source;
        std::size_t index;
    };
    std::vector<Item> order;
    for (std::size_t i = 0; i < events.size(); ++i) order.push_back({events[i].start_ns, events[i].end_ns, Source::host, i});
    for (std::size_t i = 0; i < device.size(); ++i) {
        if (device[i].kind != DeviceEvent::Kind::runtime) order.push_back({device[i].start_ns, device[i].end_ns, Source::device, i});
    }
    // Allocations and frees outside every event are rows of their own, "[memory]", as
    // torch's top-level memory events; "outside" by the same rule as attribution (no event
    // of the record's thread holds it in [start, end)).
    if (!memory.empty()) {
        const std::vector<std::vector<int>> by_thread = events_by_thread(events, threads.size());
        for (std::size_t i = 0; i < memory.size(); ++i) {
            const MemoryEvent& m = memory[i];
            if (enclosing_event(events, by_thread[static_cast<std::size_t>(m.thread)], m.ts_ns) < 0) {
                order.push_back({m.ts_ns, m.ts_ns, Source::memory, i});
            }
        }
    }
    std::stable_sort(order.begin(), order.end(), [](const Item& a, const Item& b) {
        if (a.start != b.start) return a.start < b.start;
        return a.end > b.end;
    });
    std::vector<KeyAverage> rows;
    std::map<std::tuple<std::string, std::string, bool>, std::size_t> index;
    const auto row_for = [&](const std::string& key, const std::string& shapes, bool on_device) -> KeyAverage& {
        const auto [it, added] = index.try_emplace({key, shapes, on_device}, rows.size());
        if (added) {
            KeyAverage row;
            row.key = key;
            row.input_shapes = shapes;
            row.is_device_event = on_device;
            rows.push_back(std::move(row));
        }
        return rows[it->second];
    };
    for (const Item& item : order) {
        if (item.source == Source::memory) {
            const MemoryRecord& m = memory[item.index].record;
            KeyAverage& row = row_for("[memory]", options.group_by_input_shape ? "[]" : "", false);
            row.count += 1;
            (m.device_type == 1 ? row.cuda_memory_usage : row.cpu_memory_usage) += m.bytes;
            (m.device_type == 1 ? row.self_cuda_memory_usage : row.self_cpu_memory_usage) += m.bytes;
            continue;
        }
        if (item.source == Source::device) {  // kernels and copies get rows of their own, with device time only
            const DeviceEvent& d = device[item.index];
            KeyAverage& row = row_for(d.name, options.group_by_input_shape ? "[]" : "", true);
            row.count += 1;
            row.cuda_time_total_us += static_cast<double>(d.end_ns - d.start_ns) / 1000.0;
            row.self_cuda_time_total_us += static_cast<double>(d.end_ns - d.start_ns) / 1000.0;
            continue;
        }
        const Event& e = events[item.index];
        const EventInputs* in = inputs_of(e);
        const std::string shapes = options.group_by_input_shape ? shapes_string(in ? in->shapes : kNoShapes) : "";
        const EventTotals t = totals_of(item.index);
        // Steps aggregate into one row, as in torch ("ProfilerStep#3" -> "ProfilerStep*").
        const bool step = e.name.rfind("ProfilerStep#", 0) == 0;
        KeyAverage& row = row_for(step ? std::string("ProfilerStep*") : std::string(e.name), shapes, false);
        row.count += 1;
        row.cpu_time_total_us += static_cast<double>(e.duration_ns()) / 1000.0;
        row.self_cpu_time_total_us += static_cast<double>(e.duration_ns() - children_ns[item.index]) / 1000.0;
        row.cuda_time_total_us += static_cast<double>(t.cuda_time_ns) / 1000.0;
        row.self_cuda_time_total_us += static_cast<double>(t.self_cuda_time_ns) / 1000.0;
        row.cpu_memory_usage += t.cpu_memory;
        row.self_cpu_memory_usage += t.self_cpu_memory;
        row.cuda_memory_usage += t.cuda_memory;
        row.self_cuda_memory_usage += t.self_cuda_memory;
    }
    return KeyAverages(std::move(rows), profile_memory);
}

}  // namespace vitals::profiler
