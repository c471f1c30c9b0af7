#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <numeric>
#include <stdexcept>

#include "gzip.hpp"
#include "vitals/internal/checked_number.hpp"
#include "vitals/internal/json_depth.hpp"
#include "vitals/profiler/trace.hpp"

namespace vitals::profiler {
namespace {

// 4e15 us is about 127 years: twice that in nanoseconds (8e18) still fits in int64.
constexpr double kMaxTraceMicroseconds = 4e15;

}  // namespace

Trace read_chrome_trace(const std::filesystem::path& path) {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) {
        throw std::runtime_error(fmt::format("cannot read trace '{}': it is a folder", path.string()));
    }
    const std::filesystem::file_status status = std::filesystem::status(path, ec);
    if (!ec && std::filesystem::exists(status) && !std::filesystem::is_regular_file(status)) {
        throw std::runtime_error(fmt::format("cannot read trace '{}': it is not a regular file", path.string()));
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error(fmt::format("cannot read trace '{}'", path.string()));
    std::string text;
    try {
        text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    } catch (const std::exception& e) {
        throw std::runtime_error(fmt::format("cannot read trace '{}': {}", path.string(), e.what()));
    }
    return parse_chrome_trace(text, path.string());
}

Trace parse_chrome_trace(std::string_view text, const std::string& name) {
    const std::filesystem::path path(name);
    // tensorboard_trace_handler's .gz files, and any gzipped trace.
    std::string inflated;
    if (detail::looks_gzipped(text)) {
        // Capped, so that a small file which expands to gigabytes (a "gzip bomb") is refused
        // before it exhausts memory: parsing takes several times the text's size again.
        std::size_t cap = 0;
        try {
            cap = detail::max_trace_bytes();
        } catch (const std::invalid_argument& e) {
            throw std::runtime_error(fmt::format("cannot read '{}': {}", path.string(), e.what()));
        }
        const char* set = std::getenv("VITALS_MAX_TRACE_BYTES");
        const std::string past_cap = fmt::format(
            " ({:g} MiB), the cap on a gzipped trace's expanded size (VITALS_MAX_TRACE_BYTES{}); to read a larger trace, "
            "raise it where there is memory to parse the trace, e.g. VITALS_MAX_TRACE_BYTES=4G",
            static_cast<double>(cap) / (1 << 20), set != nullptr && *set != '\0' ? fmt::format("={}", set) : std::string(", unset: the default"));
        inflated = detail::gzip_decompress(text, path.string(), cap, past_cap);
        text = inflated;
    }
    nlohmann::json doc;
    // Traces are shallow (events with an args object); deeper nesting is refused before
    // it can exhaust the stack of whoever walks or frees the document.
    constexpr std::size_t kMaxDepth = 64;
    if (json_nesting_depth(text) > kMaxDepth) {
        throw std::runtime_error(
            fmt::format("trace '{}' nests JSON deeper than {} levels; Chrome traces are not that deep", path.string(), kMaxDepth));
    }
    try {
        doc = nlohmann::json::parse(text);
    } catch (const nlohmann::json::exception& e) {  // parse errors, and numbers too large for a double
        throw std::runtime_error(fmt::format("trace '{}' is not JSON: {}", path.string(), e.what()));
    }
    const nlohmann::json* list = nullptr;
    if (doc.is_object() && doc.contains("traceEvents") && doc.at("traceEvents").is_array()) list = &doc.at("traceEvents");
    if (doc.is_array()) list = &doc;  // the bare-array form of the format
    if (list == nullptr) {
        throw std::runtime_error(fmt::format(
            "'{}' is not a Chrome trace: expected an object with a \"traceEvents\" list (Kineto, vitals) or a list of "
            "events (torch's legacy profiler)",
            path.string()));
    }
    Trace trace;
    std::map<std::int64_t, int> threads;
    try {
        for (const nlohmann::json& e : *list) {
            if (!e.is_object() || e.value("ph", "") != "X") continue;
            const std::string category = e.value("cat", "");
            // Host work only: device slices and runtime calls are not host operators, and
            // neither is the span of the whole recording that Kineto adds ("PyTorch
            // Profiler (0)", category Trace, process "Spans").
            if (category == "kernel" || category == "gpu_memcpy" || category == "gpu_memset" ||
                category == "gpu_user_annotation" || category == "cuda_runtime" || category == "cuda_driver" ||
                category == "Trace" || (e.contains("pid") && e.at("pid") == "Spans")) {
                continue;
            }
            std::int64_t tid = 0;  // a named thread ("tid": "stream 7") is thread 0
            if (e.at("tid").is_number()) {
                const std::optional<std::int64_t> number = checked_integer<std::int64_t>(e.at("tid"));
                if (!number) {
                    throw std::runtime_error(fmt::format("trace '{}': event '{}' has tid {}; expected a whole number of 64 bits",
                                                         path.string(), e.value("name", ""), e.at("tid").dump()));
                }
                tid = *number;
            }
            const auto [it, added] = threads.try_emplace(tid, static_cast<int>(trace.threads.size()));
            if (added) trace.threads.push_back({tid, ""});
            Event event;
            event.name = trace.intern(e.at("name").get<std::string>());
            event.category = category == "cpu_op" ? Category::cpu_op : Category::user_annotation;
            event.thread = it->second;
            const double ts = e.at("ts").get<double>(), dur = e.at("dur").get<double>();
            // Within about 140 years of the epoch, start and end alike (kMaxTraceMicroseconds):
            // every time, and the difference of any two, then fits in int64 nanoseconds.
            if (!(std::fabs(ts) < kMaxTraceMicroseconds) || !(dur >= 0 && std::fabs(ts) + dur < kMaxTraceMicroseconds)) {
                throw std::runtime_error(fmt::format(
                    "trace '{}': event '{}' has ts {} and dur {}; expected a dur of 0 or more and |ts| + dur below {:g} "
                    "microseconds",
                    path.string(), event.name, ts, dur, kMaxTraceMicroseconds));
            }
            event.start_ns = std::llround(ts * 1000.0);
            event.end_ns = event.start_ns + std::llround(dur * 1000.0);
            event.external_id = static_cast<std::int64_t>(trace.events.size()) + 1;
            trace.events.push_back(std::move(event));
        }
    } catch (const nlohmann::json::exception& e) {
        throw std::runtime_error(fmt::format("trace '{}' has an event without name, tid, ts or dur: {}", path.string(), e.what()));
    }
    trace.link_parents();
    trace.compute_attribution();
    return trace;
}

}  // namespace vitals::profiler
