// The summary table in torch.profiler's layout (profiler_util._build_table).
#include "vitals/profiler/key_averages.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace vitals::profiler {
namespace {

constexpr int kDefaultColumnWidth = 12;
constexpr int kMaxNameColumnWidth = 55;

// Characters in UTF-8 text: bytes that do not continue a sequence.
std::size_t code_points(std::string_view text) {
    return static_cast<std::size_t>(
        std::count_if(text.begin(), text.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

// The first n characters of UTF-8 text, whole.
std::string first_code_points(std::string_view text, std::size_t n) {
    std::size_t seen = 0, end = 0;
    for (; end < text.size(); ++end) {
        if ((static_cast<unsigned char>(text[end]) & 0xC0) != 0x80 && seen++ == n) break;
    }
    return std::string(text.substr(0, end));
}
constexpr int kMaxShapesColumnWidth = 80;
constexpr int kSpacing = 2;

std::string format_time(double us) {
    if (us >= 1e6) return fmt::format("{:.3f}s", us / 1e6);
    if (us >= 1e3) return fmt::format("{:.3f}ms", us / 1e3);
    return fmt::format("{:.3f}us", us);
}

std::string format_share(double part, double total) {
    if (total == 0) return "NaN";
    return fmt::format("{:.2f}%", part * 100.0 / total);
}

std::string format_memory(std::int64_t bytes) {
    constexpr double kb = 1024, mb = 1024 * kb, gb = 1024 * mb;
    const double b = static_cast<double>(bytes);
    if (std::fabs(b) >= gb) return fmt::format("{:.2f} Gb", b / gb);
    if (std::fabs(b) >= mb) return fmt::format("{:.2f} Mb", b / mb);
    if (std::fabs(b) >= kb) return fmt::format("{:.2f} Kb", b / kb);
    return fmt::format("{} b", bytes);
}

using SortKey = std::function<double(const KeyAverage&)>;

const std::vector<std::pair<std::string, SortKey>>& sort_key_table() {
    static const std::vector<std::pair<std::string, SortKey>> keys = {
        {"cpu_time", [](const KeyAverage& r) { return r.cpu_time_us(); }},
        {"cpu_time_total", [](const KeyAverage& r) { return r.cpu_time_total_us; }},
        {"self_cpu_time_total", [](const KeyAverage& r) { return r.self_cpu_time_total_us; }},
        {"cuda_time", [](const KeyAverage& r) { return r.cuda_time_us(); }},
        {"cuda_time_total", [](const KeyAverage& r) { return r.cuda_time_total_us; }},
        {"self_cuda_time_total", [](const KeyAverage& r) { return r.self_cuda_time_total_us; }},
        {"cpu_memory_usage", [](const KeyAverage& r) { return static_cast<double>(r.cpu_memory_usage); }},
        {"self_cpu_memory_usage", [](const KeyAverage& r) { return static_cast<double>(r.self_cpu_memory_usage); }},
        {"cuda_memory_usage", [](const KeyAverage& r) { return static_cast<double>(r.cuda_memory_usage); }},
        {"self_cuda_memory_usage", [](const KeyAverage& r) { return static_cast<double>(r.self_cuda_memory_usage); }},
        {"count", [](const KeyAverage& r) { return static_cast<double>(r.count); }},
    };
    return keys;
}

}  // namespace

const std::vector<std::string>& sort_keys() {
    static const std::vector<std::string> names = [] {
        std::vector<std::string> out;
        for (const auto& [name, key] : sort_key_table()) out.push_back(name);
        return out;
    }();
    return names;
}

std::string KeyAverages::table(const TableOptions& options) const {
    std::vector<KeyAverage> rows = rows_;
    if (!options.sort_by.empty()) {
        const auto& keys = sort_key_table();
        const auto key = std::find_if(keys.begin(), keys.end(), [&](const auto& k) { return k.first == options.sort_by; });
        if (key == keys.end()) {
            throw std::invalid_argument(fmt::format("table: unknown sort key '{}'; use one of: {}", options.sort_by,
                                                    fmt::join(sort_keys(), ", ")));
        }
        // Descending and stable, as Python's sorted(..., reverse=True).
        std::stable_sort(rows.begin(), rows.end(),
                         [&](const KeyAverage& a, const KeyAverage& b) { return key->second(a) > key->second(b); });
    }
    if (rows.empty()) return "";

    const bool has_cuda_time = std::any_of(rows.begin(), rows.end(), [](const auto& r) { return r.self_cuda_time_total_us > 0; });
    const bool has_cuda_memory = std::any_of(rows.begin(), rows.end(), [](const auto& r) { return r.self_cuda_memory_usage > 0; });
    // As torch: the column only when some row has shapes (grouping by shape without
    // recorded shapes gives every row "[]", and no column).
    const bool has_shapes =
        std::any_of(rows.begin(), rows.end(), [](const auto& r) { return !r.input_shapes.empty() && r.input_shapes != "[]"; });

    // Widths, truncation and padding count characters (code points), as Python's len()
    // and format() do in torch: a CJK name pads as torch pads it, and is never cut inside
    // a character.
    std::size_t longest_name = 0, longest_shapes = 0;
    for (const auto& r : rows) {
        longest_name = std::max(longest_name, code_points(r.key));
        longest_shapes = std::max(longest_shapes, code_points(r.input_shapes));
    }
    const int name_width = std::min(static_cast<int>(longest_name) + 4, kMaxNameColumnWidth);
    const int shapes_width = std::min(static_cast<int>(longest_shapes) + 4, kMaxShapesColumnWidth);

    std::vector<std::string> headers = {"Name", "Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg"};
    if (has_cuda_time) headers.insert(headers.end(), {"Self CUDA", "Self CUDA %", "CUDA total", "CUDA time avg"});
    if (profile_memory_) {
        headers.insert(headers.end(), {"CPU Mem", "Self CPU Mem"});
        if (has_cuda_memory) headers.insert(headers.end(), {"CUDA Mem", "Self CUDA Mem"});
    }
    headers.push_back("# of Calls");
    std::vector<int> widths(headers.size(), kDefaultColumnWidth);
    widths[0] = name_width;
    if (has_shapes) {
        headers.push_back("Input Shapes");
        widths.push_back(shapes_width);
    }

    // Every column right-aligned in its width, followed by two spaces (even the last).
    const auto format_row = [&](const std::vector<std::string>& cells) {
        std::string line;
        for (std::size_t i = 0; i < cells.size(); ++i) {
            const std::size_t length = code_points(cells[i]);
            const auto width = static_cast<std::size_t>(widths[i]);
            if (length < width) line += std::string(width - length, ' ');
            line += cells[i];
            line += std::string(kSpacing, ' ');
        }
        return line;
    };
    std::string separator;
    for (int w : widths) separator += std::string(static_cast<std::size_t>(w), '-') + std::string(kSpacing, ' ');

    double total_self_cpu = 0, total_self_cuda = 0;
    for (const auto& r : rows) {
        total_self_cpu += r.self_cpu_time_total_us;
        if (r.is_device_event) total_self_cuda += r.self_cuda_time_total_us;
    }

    std::string out;
    const auto append = [&](const std::string& line) { out += line + "\n"; };
    append(separator);
    append(format_row(headers));
    append(separator);
    int shown = 0;
    for (const auto& r : rows) {
        if (shown == options.row_limit) break;
        ++shown;
        std::string name = r.key;
        if (static_cast<int>(code_points(name)) >= name_width - 3) {
            name = first_code_points(name, static_cast<std::size_t>(name_width - 3)) + "...";
        }
        std::vector<std::string> cells = {
            name,
            format_share(r.self_cpu_time_total_us, total_self_cpu),
            format_time(r.self_cpu_time_total_us),
            format_share(r.cpu_time_total_us, total_self_cpu),
            format_time(r.cpu_time_total_us),
            format_time(r.cpu_time_us()),
        };
        if (has_cuda_time) {
            cells.insert(cells.end(), {format_time(r.self_cuda_time_total_us),
                                       format_share(r.self_cuda_time_total_us, total_self_cuda),
                                       format_time(r.cuda_time_total_us), format_time(r.cuda_time_us())});
        }
        if (profile_memory_) {
            cells.insert(cells.end(), {format_memory(r.cpu_memory_usage), format_memory(r.self_cpu_memory_usage)});
            if (has_cuda_memory) {
                cells.insert(cells.end(), {format_memory(r.cuda_memory_usage), format_memory(r.self_cuda_memory_usage)});
            }
        }
        cells.push_back(std::to_string(r.count));
        if (has_shapes) cells.push_back(first_code_points(r.input_shapes, static_cast<std::size_t>(shapes_width)));
        append(format_row(cells));
    }
    append(separator);
    append("Self CPU time total: " + format_time(total_self_cpu));
    if (has_cuda_time) append("Self CUDA time total: " + format_time(total_self_cuda));
    return out;
}

}  // namespace vitals::profiler
