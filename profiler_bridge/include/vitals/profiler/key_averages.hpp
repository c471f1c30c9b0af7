// key_averages() and its table, in torch.profiler's layout.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace vitals::profiler {

struct KeyAveragesOptions {
    bool group_by_input_shape = false;
};

// One row: all events of one name (and input shapes).
struct KeyAverage {
    std::string key;
    std::string input_shapes;  // "[[32, 512], [1024, 512], [1024]]" when grouped by shape, else ""
    std::int64_t count = 0;
    double cpu_time_total_us = 0, self_cpu_time_total_us = 0;
    double cuda_time_total_us = 0, self_cuda_time_total_us = 0;
    std::int64_t cpu_memory_usage = 0, self_cpu_memory_usage = 0;
    std::int64_t cuda_memory_usage = 0, self_cuda_memory_usage = 0;
    bool is_device_event = false;  // a kernel/memcpy row of its own (device time only)

    double cpu_time_us() const { return count == 0 ? 0.0 : cpu_time_total_us / static_cast<double>(count); }
    double cuda_time_us() const { return count == 0 ? 0.0 : cuda_time_total_us / static_cast<double>(count); }
};

struct TableOptions {
    // cpu_time, cpu_time_total, self_cpu_time_total, cuda_time, cuda_time_total,
    // self_cuda_time_total, cpu_memory_usage, self_cpu_memory_usage, cuda_memory_usage,
    // self_cuda_memory_usage, count; empty: first-seen order.
    std::string sort_by{};
    int row_limit = 100;
};

class KeyAverages {
public:
    KeyAverages() = default;
    // profile_memory: show the memory columns (the profile recorded memory).
    KeyAverages(std::vector<KeyAverage> rows, bool profile_memory)
        : rows_(std::move(rows)), profile_memory_(profile_memory) {}

    const std::vector<KeyAverage>& rows() const& { return rows_; }
    // From a temporary (`trace.key_averages().rows()`), the rows themselves: safe to loop over.
    std::vector<KeyAverage> rows() && { return std::move(rows_); }
    // The torch.profiler summary table. Throws std::invalid_argument for an unknown
    // sort key (naming the valid ones) or a negative row limit.
    std::string table(const TableOptions& options = {}) const;

private:
    std::vector<KeyAverage> rows_;
    bool profile_memory_ = false;
};

// The sort keys table() accepts.
const std::vector<std::string>& sort_keys();

}  // namespace vitals::profiler
